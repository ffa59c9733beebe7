/**
 * Wordings that can only mean one thing about the mailbox: it does not exist, it is disabled, or
 * it is full. They decide a 5xx reply even against an enhanced status that says something else
 * (servers tag an unknown user 5.7.1 or 5.5.0, a full mailbox 5.1.1), so each must name the
 * mailbox, user, account or recipient, never a domain, a sender or a message. Texts are matched
 * after `normaliseReplyText` (NFKC, ASCII apostrophes and spaces), case-insensitively.
 *
 * One row per language and verdict, so a wording is easy to find and to add. Every row is
 * exercised by `mailbox-phrases.test.ts`, and the corpus rows by `classify-reply.corpus.test.ts`.
 */

/** What an unambiguous wording says about the mailbox. */
export type MailboxVerdict = 'mailbox_not_found' | 'mailbox_disabled' | 'mailbox_full';

export interface MailboxPhrase {
  /** BCP 47 language of the wording. */
  language: 'en' | 'es' | 'pt' | 'fr' | 'de' | 'it' | 'ru' | 'zh' | 'ja' | 'pl';
  verdict: MailboxVerdict;
  pattern: RegExp;
}

// A gap that stays inside one clause: no sentence end, semicolon or line of another reply.
const GAP = '[^.;!?。]{0,40}?';
const MAILBOX_NOUN =
  '(?:user|recipient|rcpt|addressee|mailbox|mail-?box|e-?mail account|account|address|local[- ]part)';
// An address as `normaliseReplyText` leaves it for matching, in its brackets or parentheses.
const AN_ADDRESS = String.raw`[(<\["']?\s*EMAIL_ADDRESS\s*[)>\]"']?`;

// `\b` only knows ASCII letters, so `désactivé\b` would never match: every pattern's `\b` becomes
// a boundary between a Unicode letter and anything else.
const UNICODE_BOUNDARY = String.raw`(?:(?<=[\p{L}\p{N}_])(?![\p{L}\p{N}_])|(?<![\p{L}\p{N}_])(?=[\p{L}\p{N}_]))`;
const phrase = (
  language: MailboxPhrase['language'],
  verdict: MailboxVerdict,
  pattern: RegExp,
): MailboxPhrase => ({
  language,
  verdict,
  pattern: new RegExp(pattern.source.replaceAll(String.raw`\b`, UNICODE_BOUNDARY), 'iu'),
});

const WORDINGS: readonly MailboxPhrase[] = [
  {
    language: 'en',
    verdict: 'mailbox_not_found',
    pattern: new RegExp(
      [
        `\\b(?:user|recipient|addressee|mailbox|address)s? unknown\\b`,
        `\\bunknown (?:user|recipient|addressee|mailbox|local[- ]part|e-?mail address)\\b`,
        `\\bno such (?:user|recipient|mailbox|account|address|e-?mail address)\\b`,
        `(?<!sender |sending |from )\\b${MAILBOX_NOUN}(?! domain)${GAP}\\b(?:does not|doesn't|does no|is not|not) exists?\\b`,
        `\\b${MAILBOX_NOUN} (?:was |could )?not (?:be )?found\\b`,
        `\\b(?:local user|user) \\[[^\\]]*\\] (?:not found|does not exist)`,
        `\\binvalid (?:recipient|mailbox|user)\\b(?! address| syntax)`,
        `\\b(?:user|recipient|mailbox|address) ${AN_ADDRESS} (?:is )?(?:unknown|not found)\\b`,
        `\\bno (?:such )?mailbox found\\b`,
        `\\bnot a valid (?:recipient|mailbox|user)\\b`,
        `\\b(?:user|recipient|mailbox) invalid\\b`,
        `\\bnonexistent (?:user|recipient|mailbox|address)\\b`,
        `\\bis not a (?:known|registered (?:gateway )?)user\\b`,
        `\\bno (?:mailbox|mail ?box|account) (?:here )?by that name\\b`,
        `\\bno mail ?box (?:available|here) for\\b`,
        `\\bcan't find user's mailbox\\b`,
        `\\bmail-box not found\\b`,
        `\\bdoes(?:n't| not) have an? (?:[^ ]+ )?account\\b`,
        `\\b(?:recipient )?address no longer exists\\b`,
        `\\bis not an active address\\b`,
      ].join('|'),
      'i',
    ),
  },
  {
    language: 'en',
    verdict: 'mailbox_disabled',
    pattern: new RegExp(
      [
        `\\b(?:account|mailbox|user|e-?mail address|recipient address|address)${GAP}(?:is |has been |was )?(?<!temporar(?:y|ily) )(?:disabled|deactivated|suspended|inactivated|discontinued|frozen|locked|expired|closed)\\b`,
        `\\b(?:inactive|disabled|deactivated|suspended) (?:user|account|mailbox|recipient|e-?mail address|address)\\b`,
        `\\b(?:account|address) inactive\\b`,
        `\\baccount not activated\\b`,
        `\\b(?:address|recipient|user|account|mailbox)(?: rejected)?: inactive\\b`,
        `\\b(?:blocked|closed|disabled|deactivated) (?:due to|for) inactivity\\b`,
        `\\brecipient no longer on server\\b`,
      ].join('|'),
      'i',
    ),
  },
  {
    language: 'en',
    verdict: 'mailbox_full',
    pattern: new RegExp(
      [
        `\\b(?:mailbox|inbox|mail ?box|mailfolder|storage)${GAP}(?:is |was )?full\\b`,
        `\\bover ?quota\\b`,
        `(?<!(?:sending|relay|daily|send|message|rate|smtp) )\\bquota (?:usage )?(?:exceeded|exceed|full)\\b`,
        `\\b(?:mailbox|disk|user|storage|recipient) quota\\b`,
        `\\bexceeds? (?:its |the |his |her )?(?:mailbox )?quota\\b`,
        `\\bexceeded (?:its )?storage allocation\\b`,
        `\\b(?:not enough|insufficient) (?:storage |disk )?space\\b`,
        `\\b(?:does not|doesn't) have enough (?:storage |disk )?space\\b`,
        `\\bout of storage\\b`,
        `\\bmailbox (?:size )?(?:limit )?exceed(?:s|ed)\\b`,
        `\\bmailbox size limit exceeded\\b`,
        `\\bquota violation\\b`,
        `\\bexhausted (?:allowed |its )?storage\\b`,
        `\\btoo many messages (?:on the server|in (?:the |this |your )?(?:mailbox|inbox))\\b`,
      ].join('|'),
      'i',
    ),
  },
  {
    language: 'es',
    verdict: 'mailbox_not_found',
    pattern:
      /\b(?:usuario|destinatario|buz[oó]n|cuenta)(?: de correo)? (?:desconocid[oa]|inexistente|no existe)\b|\bno existe (?:el|la) (?:usuario|cuenta|buz[oó]n|direcci[oó]n)\b/i,
  },
  {
    language: 'es',
    verdict: 'mailbox_disabled',
    pattern:
      /\b(?:cuenta|buz[oó]n|usuario) (?:deshabilitad[oa]|desactivad[oa]|suspendid[oa]|bloquead[oa])\b/i,
  },
  {
    language: 'es',
    verdict: 'mailbox_full',
    pattern:
      /\b(?:buz[oó]n|mailbox) (?:de correo )?(?:est[aá] )?llen[oa]\b|\b(?:cuota|espacio) (?:excedid[oa]|superad[oa]|agotad[oa])\b/i,
  },
  {
    language: 'pt',
    verdict: 'mailbox_not_found',
    pattern:
      /\b(?:usu[aá]rio|destinat[aá]rio|conta|caixa postal)(?: inv[aá]lid[oa] ou)? (?:desconhecid[oa]|inexistente|n[aã]o existe)\b/i,
  },
  {
    language: 'pt',
    verdict: 'mailbox_disabled',
    pattern:
      /\b(?:conta|caixa postal|usu[aá]rio) (?:desativad[oa]|desabilitad[oa]|suspens[oa]|bloquead[oa])\b/i,
  },
  {
    language: 'pt',
    verdict: 'mailbox_full',
    pattern:
      /\bcaixa (?:postal |de correio |de entrada )?(?:est[aá] )?(?:cheia|lotada)\b|\bcota (?:excedida|esgotada)\b/i,
  },
  {
    language: 'fr',
    verdict: 'mailbox_not_found',
    pattern:
      /\b(?:utilisateur|destinataire|adresse destinataire|compte|bo[iî]te aux lettres) (?:inconnue?|invalide|inexistante?)\b|\b(?:cette adresse|ce compte|l'adresse|le destinataire) n'existe pas\b/i,
  },
  {
    language: 'fr',
    verdict: 'mailbox_disabled',
    pattern:
      /\b(?:compte|bo[iî]te)(?: du destinataire)? (?:est )?(?:d[ée]sactiv[ée]e?|bloqu[ée]e?|suspendue?|ferm[ée]e?|archiv[ée]e?)\b/i,
  },
  {
    language: 'fr',
    verdict: 'mailbox_full',
    pattern:
      /\bbo[iî]te (?:aux lettres |de r[ée]ception )?(?:est )?(?:pleine|satur[ée]e)\b|\bquota (?:d[ée]pass[ée]|atteint)\b/i,
  },
  {
    language: 'de',
    verdict: 'mailbox_not_found',
    pattern:
      /\b(?:benutzer|empf[äa]nger|nutzer|postfach|mailbox|konto|e-?mail-adresse)\w* (?:ist )?(?:unbekannt|existiert nicht|nicht vorhanden|gibt es nicht|nicht gefunden)\b|\bunbekannte[rs]? (?:benutzer|empf[äa]nger|postfach)\b|\bdie adresse nicht gefunden\b/i,
  },
  {
    language: 'de',
    verdict: 'mailbox_disabled',
    pattern: /\b(?:konto|postfach|benutzer)\w* (?:ist )?(?:deaktiviert|gesperrt|stillgelegt)\b/i,
  },
  {
    language: 'de',
    verdict: 'mailbox_full',
    pattern:
      /\b(?:postfach|mailbox|speicher(?:platz)?)\w* (?:ist )?(?:voll|[üu]berschritten|ersch[öo]pft)\b|\bzu ?viele (?:mails|e-?mails|nachrichten) (?:auf dem server|im postfach)\b/i,
  },
  {
    language: 'it',
    verdict: 'mailbox_not_found',
    pattern:
      /\b(?:utente|destinatario|casella(?: di posta)?|indirizzo) (?:sconosciut[oa]|inesistente|non esiste)\b/i,
  },
  {
    language: 'it',
    verdict: 'mailbox_disabled',
    pattern:
      /\b(?:utente|casella(?: di posta)?|account) (?:disabilitat[oa]|disattivat[oa]|sospes[oa]|bloccat[oa])\b/i,
  },
  {
    language: 'it',
    verdict: 'mailbox_full',
    pattern:
      /\bcasella (?:di posta )?(?:è |e' )?(?:piena|satura)\b|\b(?:quota|spazio) (?:superat[oa]|esaurit[oa])\b/i,
  },
  {
    language: 'pl',
    verdict: 'mailbox_not_found',
    pattern: /\b(?:odbiorca|u[żz]ytkownik|skrzynka)\b[^.;]{0,40}\bnie istnieje\b/i,
  },
  {
    language: 'ru',
    verdict: 'mailbox_not_found',
    pattern:
      /(?:пользовател[ья]|адресата?|получател[ья]|(?:почтов(?:ый|ого) )?ящика?)[^.;]{0,30}(?:не найден|не существует)|нет такого (?:пользователя|ящика|адреса)|несуществующ(?:ий|его) (?:адрес|ящик|пользовател)/i,
  },
  {
    language: 'ru',
    verdict: 'mailbox_disabled',
    pattern:
      /(?:ящик|аккаунт|учётная запись|учетная запись)[^.;]{0,20}(?:заблокирован|отключ[её]н|удал[её]н)/i,
  },
  {
    language: 'ru',
    verdict: 'mailbox_full',
    pattern: /ящик[^.;]{0,20}(?:переполнен|заполнен)|превышен[аоы]? (?:квота|размер (?:почтового )?ящика)/i,
  },
  {
    language: 'zh',
    verdict: 'mailbox_not_found',
    pattern: /(?:用户|用戶|收件人|邮箱|郵箱|帐号|账号|賬號|帳號|地址)(?:名)?(?:不存在|未找到)/,
  },
  {
    language: 'zh',
    verdict: 'mailbox_disabled',
    pattern: /(?:用户|用戶|邮箱|郵箱|帐号|账号|賬號|帳號)(?:已被|已)?(?:冻结|凍結|禁用|停用|注销|註銷)/,
  },
  {
    language: 'zh',
    verdict: 'mailbox_full',
    pattern: /(?:邮箱|郵箱|信箱|空间|空間|容量)(?:已满|已滿|不足)|超出(?:邮箱)?(?:容量|配额)/,
  },
  {
    language: 'ja',
    verdict: 'mailbox_not_found',
    pattern:
      /(?:ユーザー?|宛先|アドレス|アカウント|メールボックス)(?:は|が)?存在しません|存在しない(?:ユーザー?|宛先|アドレス|アカウント)|宛先不明/,
  },
  {
    language: 'ja',
    verdict: 'mailbox_disabled',
    pattern: /(?:アカウント|メールボックス|ユーザー?)(?:は|が)?(?:停止|無効|凍結)(?:され|に)/,
  },
  {
    language: 'ja',
    verdict: 'mailbox_full',
    pattern:
      /(?:メールボックス|受信箱)(?:の容量)?(?:が|は)?(?:いっぱい|一杯|満杯)|容量(?:を)?(?:超過|オーバー)/,
  },
];

/** The wordings, each with Unicode-aware word boundaries and case folding. */
export const MAILBOX_PHRASES: readonly MailboxPhrase[] = WORDINGS.map(({ language, verdict, pattern }) =>
  phrase(language, verdict, pattern),
);

/**
 * The verdict a text states without doubt, or undefined. A text that states two verdicts that
 * disagree on deliverability (Latinmail's "Destinatario desconocido o mailbox lleno": unknown
 * *or* full) states none; not found and disabled together are read as disabled, the more specific
 * (Mail.ru's "invalid mailbox … account is disabled"); both are dead.
 */
export function mailboxVerdictOf(text: string): MailboxVerdict | undefined {
  const found = new Set<MailboxVerdict>();
  for (const { verdict, pattern } of MAILBOX_PHRASES) if (pattern.test(text)) found.add(verdict);
  if (found.has('mailbox_full')) return found.size === 1 ? 'mailbox_full' : undefined;
  if (found.has('mailbox_disabled')) return 'mailbox_disabled';
  return found.has('mailbox_not_found') ? 'mailbox_not_found' : undefined;
}
