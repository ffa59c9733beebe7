/**
 * The wordings the reply classifier recognises, as data. Each table is tried in order and the
 * first match wins, so a more specific wording comes before a more general one. Every pattern is
 * exercised by `test-data/smtp-replies.json` (see classify-reply.corpus.test.ts).
 */

/** Outcomes that are about our side of the session (sender, client, connection), never the mailbox. */
export const SESSION_REFUSALS = [
  'sender_rejected',
  'sender_authentication_failed',
  'reverse_dns_failed',
  'helo_rejected',
  'dnsbl_listed',
  'sender_reputation',
  'rate_limited',
  'authentication_required',
  'tls_required',
  'relay_denied',
] as const;

/** One of SESSION_REFUSALS. */
export type SessionRefusal = (typeof SESSION_REFUSALS)[number];

/**
 * Texts about the sender, the client or the connection. They are read before the enhanced status
 * because servers often pair them with a recipient-looking code (Postfix defers a sender refusal
 * to RCPT: `550 5.1.1 <probe@…>: Sender address rejected: …`). None can make a verdict worse than
 * unknown, so a false match costs a reason's precision, never a good mailbox.
 */
export const ABOUT_US_TEXTS: ReadonlyArray<readonly [RegExp, SessionRefusal]> = [
  // Exim's callout: the whole reply is about our sender, whatever else it mentions ("… may be
  // blacklisted …", "No Such User Here" of the sender's own mailbox).
  [/sender verif(y|ication) failed|verification failed for </i, 'sender_rejected'],
  // SPF / DKIM / DMARC before the rest: their refusals also say "rate limited" or "blocked".
  [
    /\b(spf(?! ?, ?helo)|dkim(?!-signature)|dmarc)\b|sender policy framework|unauthenticated (e-?mail|mail|message)|authentication checks|fails? to pass authentication|purported responsible address|mismatch(es|ed)? (the )?client ip|invalid ip for sending mail of domain|not allowed to send mail from|unverif[iy]able sending ips?/i,
    'sender_authentication_failed',
  ],
  [
    /must issue a starttls|starttls (command )?(is )?(first|required)|\btls\b.{0,20}\b(required|needed)|requires? (tls|encryption)|encryption (is )?(required|needed)|route requires encryption/i,
    'tls_required',
  ],
  [
    /authentication (is )?required|auth(entication)? needed|must (first )?authenticate|authenticate first|not authenticated|not logged in|requires? (smtp )?auth\b|\bauthrequired\b|turn on smtp authentication|without authentication|unauthenticated senders? not allowed|local user only|\bauth failed\b/i,
    'authentication_required',
  ],
  // A public DNS block list named by the receiver.
  [
    /spamhaus|spamcop|barracuda(central)?\b|\bsorbs\b|uceprotect|\bpsbl\b|\bdnsr?bl\b|\brbl\b|blocked using [a-z0-9-]+\.[a-z]|dnsbl-lookup|listed (at|in|on|by) [a-z0-9-]+\.[a-z0-9.-]+/i,
    'dnsbl_listed',
  ],
  [
    /reverse (dns|hostname|lookup|name)|\bptr\b|\brdns\b|cannot find your hostname|no reverse|(?<!relaying denied\. )ip name lookup failed/i,
    'reverse_dns_failed',
  ],
  [
    /helo command rejected|helo\/ehlo|\b(helo|ehlo) (name|domain|argument|hostname)|(invalid|bad|illegal) (helo|ehlo)|helohost|fully[- ]qualified (host ?name|domain)/i,
    'helo_rejected',
  ],
  // Rate limits come before reputation: "temporarily rate limited" says what to do (wait).
  [
    /rate[- ]?limit|concurrent connections|too many (connections|concurrent|sessions|(recent )?messages|mails|e-?mails|errors|commands|invalid|login)|too much mail(?! data)|too fast|too quickly|receiving mail at a rate|(excessive|unexpected|unusual) volume|throttl|connection rate|message rate|(?<!line |size |length )limit exceeded|exceeded (the |its |your |their )?(permitted |connection |message |sending )?limit|daily (sending |user |smtp |relay )?(quota|limit)|max(imum)? (number of )?(connections?|messages?) per|sent to too many recipients|frequency limit/i,
    'rate_limited',
  ],
  [
    /reputation|rate of unsolicited|unsolicited mail originating|spam abuse|banned (sending ip|sender|ip)|block ?list|black ?list|blocklisted|blacklisted|spam ?list|spam sender|block for spam|black ip|openrelay|excessive unknown recipients|permanently deferred|user complaints|suspicious activity|ipcheck\.proofpoint|\bip\b[^.]{0,40}\b(blocked|banned|not allowed|not authorized)|ip address [0-9a-f.:]+ (is )?blocked|traffic not accepted from this ip|client host (rejected|blocked)|is an open relay|blocked for abuse|smtp server of your isp|bypassing service provider|denyip/i,
    'sender_reputation',
  ],
  [
    /relay(ing)? (access )?(is )?(denied|not permitted|not allowed|prohibited|refused)|relaying to \S+ (prohibited|denied)|unable to relay|not (permitted|allowed|authorized|configured) to relay|open relay|rcpthosts|in my list of allowed|we do not relay|non-accepted domain|relay not permitted|no relaying|insecure mail relay|unauthori[sz]ed relay|as a relay, but|no such domain at this location|relay check|denies relay|not a gateway/i,
    'relay_denied',
  ],
  [
    /sender address rejected|sender (address )?(is )?(rejected|denied|refused|blocked|not allowed|invalid|unknown)|sender verif(y|ication)|verification failed for <|domain of sender address|envelope sender|envelope (blocked|rejected)|(bad|invalid|unknown|unroutable) sender|sender domain|sender e-?mail is not|mail from (address )?(rejected|refused|not accepted)|mail from \S+ rejected|mail from is mismatched|mail from invalid|denies the sender|sender is unvalidated|black mail address|verify mail ?from failed|sending address not accepted|from: domain is invalid|identities failed the check|invalid dns mx|return[- ]path|mail sending denied|sender not in allowed|unresolvable rfc\.?5321/i,
    'sender_rejected',
  ],
];

/**
 * Provider replies that do mean "no such user" (or "disabled") although their enhanced status
 * alone would not say so. Each names the status it comes with, so the same words from another
 * server with another status are read by the general rules.
 */
export const PROVIDER_MAILBOX_REPLIES: ReadonlyArray<
  readonly [string | null, RegExp, 'mailbox_not_found' | 'mailbox_disabled']
> = [
  // Office 365 Directory Based Edge Blocking: the address is not in the tenant's directory.
  ['5.4.1', /recipient address(es)? rejected ?: access denied/i, 'mailbox_not_found'],
  ['5.7.504', /recipient address rejected/i, 'mailbox_not_found'],
  ['5.7.505', /banned recipient/i, 'mailbox_disabled'],
  // Outlook.com's (Hotmail's) unknown user.
  ['5.5.0', /requested action not taken: mailbox unavailable/i, 'mailbox_not_found'],
  // Yahoo and AOL answer without an enhanced status.
  [null, /\bdd this user doesn't have an? [^ ]* ?account/i, 'mailbox_not_found'],
  [null, /\bdd [^ ]+ is no longer valid/i, 'mailbox_disabled'],
  [null, /this mailbox is disabled/i, 'mailbox_disabled'],
  // Proofpoint Essentials: the address failed its recipient verification.
  ['5.7.1', /user email address is marked as invalid/i, 'mailbox_not_found'],
];

/**
 * Policy wording. A reply that says it refused by policy is not read as a dead mailbox, whatever
 * mailbox words or status it also carries ("User unknown or blocked", Facebook's `5.1.1 … Refused
 * due to recipient preferences`). RFC 5321's own 553 text "mailbox name not allowed" is about
 * syntax, not policy.
 */
export const POLICY_TEXT =
  /block(?!ed due to inactivity)|spam|junk mail|virus|rejected by recipients?|polic(y|ies)|prohibit|(?<!name )not allowed|denied|banned|(?<!connection )refused|restricted|forgery|content reject|white ?list|allow ?list|not permitted|no permit/i;

/** Fallbacks for a 5xx without a (meaningful) enhanced status, in order. */
export const MAILBOX_TEXTS: ReadonlyArray<
  readonly [RegExp, 'blocked_by_policy' | 'mailbox_full' | 'mailbox_disabled' | 'mailbox_not_found']
> = [
  // Policy wording first: block messages often also say "user" or "recipient".
  // (RFC 5321's own 553 text "mailbox name not allowed" is about syntax, not policy.)
  [POLICY_TEXT, 'blocked_by_policy'],
  [/\bfull\b|quota|insufficient (storage|space)|out of storage/i, 'mailbox_full'],
  [/disabled|inactive|suspended|deactivated|no longer (valid|active|available|in use)/i, 'mailbox_disabled'],
  [
    /user unknown|unknown (user|recipient|mailbox|address|local)|no such (user|recipient|mailbox|address|account)|invalid (recipient|mailbox|address|user)|unrouteable|no mailbox|not a valid (recipient|mailbox|user)|addressee unknown|not a known user|not a member of domain|doesn't have an? [^ ]* ?account/i,
    'mailbox_not_found',
  ],
];

/**
 * A 5xx that reports a fault of the receiving system (a routing loop, its configuration): never
 * a verdict on the mailbox, whatever status it carries (Postfix's `550 5.1.1 … mail for example.com
 * loops back to myself`).
 */
export const SYSTEM_FAULT_TEXT =
  /loops? back to myself|mail (for \S+ )?loops|loop detected|looping message|too many hops|(system|local) config(uration)? error|internal (system|server) error/i;

/** 4xx wordings that name greylisting (Mimecast's greylisting says "internal resources"). */
export const GREYLIST_TEXT = /greylist|graylist|internal resources are temporarily unavailable/i;
/** 4xx wordings of a server in trouble: temporary, but not greylisting. */
export const SERVER_TROUBLE_TEXT =
  /temporary (local |system |server )?(problem|failure|error)|local problem|server (is )?(busy|error)|\bbusy\b|resources? (are |is )?temporarily unavailable|service (is )?(currently |temporarily )?(unavailable|not available|not active)|insufficient (system|disk)|internal (server )?error/i;
/** A 4xx without a status that only asks for a retry: how greylisting servers without one answer. */
export const RETRY_LATER_TEXT = /try (again )?later|deferred|retry later/i;
/** A 4xx that is a standing policy rather than anything temporary. */
export const NOT_ALLOWLISTED_TEXT = /not in (the )?(whitelist|allowlist)/i;
export const TOO_MANY_RECIPIENTS_TEXT =
  /too many recipients|out of allow(ed)? rcpt numbers|recipients? per (message|transaction)|separate transaction/i;
