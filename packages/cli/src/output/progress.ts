import type { CliIo } from '../io.js';

/** A progress bar on stderr: redrawn in place on a terminal, a line per 10% otherwise. */
export function createProgress(io: CliIo, total: number, label: string) {
  const tty = io.stderr.isTTY === true;
  let lastDecile = -1;
  const started = performance.now();
  return {
    update(done: number) {
      const fraction = total === 0 ? 1 : done / total;
      if (tty) {
        const width = 30;
        const filled = Math.round(fraction * width);
        const rate = done / Math.max(0.001, (performance.now() - started) / 1000);
        io.stderr.write(
          `\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${Math.round(rate)}/s `,
        );
        return;
      }
      const decile = Math.floor(fraction * 10);
      if (decile > lastDecile) {
        lastDecile = decile;
        io.stderr.write(`${label}: ${done}/${total} (${decile * 10}%)\n`);
      }
    },
    done() {
      if (tty) io.stderr.write('\n');
    },
  };
}
