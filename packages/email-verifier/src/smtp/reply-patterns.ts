/**
 * The wordings the reply classifier recognises, as data. Each table is tried in order and the
 * first match wins, so a more specific wording comes before a more general one. Every pattern is
 * exercised by `data/smtp-replies.json` (see classify-reply.corpus.test.ts).
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
  // SPF / DKIM / DMARC before the rest: their refusals also say "rate limited" or "blocked".
  [
    /\b(spf|dkim|dmarc)\b|sender policy framework|unauthenticated (e-?mail|mail|message)|authentication checks|fails? to pass authentication/i,
    'sender_authentication_failed',
  ],
  [
    /must issue a starttls|starttls (command )?(is )?(first|required)|\btls\b.{0,20}\b(required|needed)|requires? (tls|encryption)|encryption (is )?(required|needed)|route requires encryption/i,
    'tls_required',
  ],
  [
    /authentication (is )?required|auth(entication)? needed|must (first )?authenticate|authenticate first|not authenticated|not logged in|requires? (smtp )?auth\b|\bauthrequired\b/i,
    'authentication_required',
  ],
  // A public DNS block list named by the receiver.
  [
    /spamhaus|spamcop|barracuda(central)?\b|\bsorbs\b|uceprotect|\bpsbl\b|\bdnsbl\b|\brbl\b|blocked using |dnsbl-lookup|listed (at|in|on|by) [a-z0-9-]+\.[a-z0-9.-]+/i,
    'dnsbl_listed',
  ],
  [
    /reverse (dns|hostname|lookup|name)|\bptr\b|\brdns\b|cannot find your hostname|no reverse/i,
    'reverse_dns_failed',
  ],
  [
    /helo command rejected|helo\/ehlo|\b(helo|ehlo) (name|domain|argument|hostname)|(invalid|bad|illegal) (helo|ehlo)|fully[- ]qualified (host ?name|domain)/i,
    'helo_rejected',
  ],
  // Rate limits come before reputation: "temporarily rate limited" says what to do (wait).
  [
    /rate[- ]?limit|concurrent connections|too many (connections|concurrent|sessions|messages|mails|e-?mails|errors|commands|invalid|login)|too much mail|too fast|too quickly|receiving mail at a rate|(excessive|unexpected|unusual) volume|throttl|connection rate|message rate|limit exceeded|exceeded (the |its |your )?(permitted |connection |message |sending )?limit|daily (sending |user |smtp )?(quota|limit)|max(imum)? (number of )?(connections?|messages?) per/i,
    'rate_limited',
  ],
  [
    /reputation|unsolicited|spam abuse|banned (sending ip|sender|ip)|block ?list|black ?list|blocklisted|blacklisted|excessive unknown recipients|permanently deferred|user complaints|suspicious activity|ipcheck\.proofpoint|\bip\b[^.]{0,40}\b(blocked|banned|not allowed|not authorized)|traffic not accepted from this ip/i,
    'sender_reputation',
  ],
  [
    /relay(ing)? (access )?(is )?(denied|not permitted|not allowed|prohibited|refused)|unable to relay|not (permitted|allowed|authorized) to relay|open relay|rcpthosts|in my list of allowed|we do not relay|non-accepted domain|relay not permitted|no relaying/i,
    'relay_denied',
  ],
  [
    /sender address rejected|sender (address )?(rejected|denied|refused|blocked|not allowed|invalid|unknown)|sender verif(y|ication)|verification failed for <|domain of sender address|envelope sender|envelope (blocked|rejected)|(bad|invalid|unknown) sender|sender domain|mail from (address )?(rejected|refused|not accepted)|return[- ]path|mail sending denied|sender not in allowed|unresolvable rfc\.?5321/i,
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
  ['5.4.1', /recipient address rejected: access denied/i, 'mailbox_not_found'],
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

/** Fallbacks for a 5xx without a (meaningful) enhanced status, in order. */
export const MAILBOX_TEXTS: ReadonlyArray<
  readonly [RegExp, 'blocked_by_policy' | 'mailbox_full' | 'mailbox_disabled' | 'mailbox_not_found']
> = [
  // Policy wording first: block messages often also say "user" or "recipient".
  // (RFC 5321's own 553 text "mailbox name not allowed" is about syntax, not policy.)
  [/block|spam|polic(y|ies)|prohibit|(?<!name )not allowed|denied|banned|refused/i, 'blocked_by_policy'],
  [/\bfull\b|quota|insufficient (storage|space)|out of storage/i, 'mailbox_full'],
  [/disabled|inactive|suspended|deactivated|no longer (valid|active|available|in use)/i, 'mailbox_disabled'],
  [
    /user unknown|unknown (user|recipient|mailbox|address|local)|no such (user|recipient|mailbox|address|account)|(does not|doesn't|not) exist|not found|invalid (recipient|mailbox|address|user)|unrouteable|no mailbox|recipient rejected|not a valid (recipient|mailbox|user)|addressee unknown|not a known user|doesn't have an? [^ ]* ?account/i,
    'mailbox_not_found',
  ],
];

/** 4xx wordings that name greylisting (Mimecast's greylisting says "internal resources"). */
export const GREYLIST_TEXT = /greylist|graylist|internal resources are temporarily unavailable/i;
/** 4xx wordings of a server in trouble: temporary, but not greylisting. */
export const SERVER_TROUBLE_TEXT =
  /temporary (local |system |server )?(problem|failure|error)|local problem|server (is )?(busy|error)|system (is )?busy|resources? (are |is )?temporarily unavailable|service (is )?(temporarily )?(unavailable|not available|not active)|insufficient (system|disk)|internal (server )?error/i;
/** A 4xx without a status that only asks for a retry: how greylisting servers without one answer. */
export const RETRY_LATER_TEXT = /try (again )?later|deferred|retry later/i;
/** A 4xx that is a standing policy rather than anything temporary. */
export const NOT_ALLOWLISTED_TEXT = /not in (the )?(whitelist|allowlist)/i;
export const TOO_MANY_RECIPIENTS_TEXT =
  /too many recipients|recipients? per (message|transaction)|separate transaction/i;
