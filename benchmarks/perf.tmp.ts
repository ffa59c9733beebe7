import { parseAddress } from '../packages/email-verifier/src/syntax/parse-address.ts';
import mc from 'mailchecker';
const doms = ['gmail.com','yahoo.com','example.org','company-123.co.uk','Mail.Example.COM','sub.domain.io','mailinator.com'];
const addrs: string[] = [];
for (let i = 0; i < 1_000_000; i++) addrs.push(`user.${i % 977}+tag${i % 13}@${doms[i % doms.length]}`);
for (let r = 0; r < 3; r++) {
let t = performance.now(); let ok = 0;
for (const a of addrs) if (parseAddress(a).ok) ok++;
const ours = performance.now() - t;
t = performance.now(); let ok2 = 0;
for (const a of addrs) if (mc.isValid(a)) ok2++;
const theirs = performance.now() - t;
console.log('ours', ours.toFixed(0), ok, 'mailchecker', theirs.toFixed(0), ok2);
}
