/** Machine-readable codes of the syntax problems; `detail` carries the human message. */
export const SYNTAX_PROBLEMS = [
  'not_a_string',
  'empty',
  'control_character',
  'invalid_unicode',
  'surrounding_whitespace',
  'missing_at',
  'empty_local_part',
  'empty_domain',
  'local_leading_dot',
  'local_trailing_dot',
  'local_consecutive_dots',
  'local_invalid_character',
  'local_partially_quoted',
  'local_unterminated_quote',
  'local_empty_quoted',
  'local_invalid_quoted_pair',
  'local_utf8_not_allowed',
  'local_too_long',
  'local_bidi_control',
  'local_invisible_character',
  'local_unicode_space',
  'local_lookalike_at',
  'local_noncharacter',
  'comment',
  'domain_leading_dot',
  'domain_trailing_dot',
  'domain_empty_label',
  'domain_invalid_character',
  'domain_label_too_long',
  'domain_label_hyphen',
  'domain_single_label',
  'domain_numeric_tld',
  'domain_invalid_idn',
  'domain_ignored_character',
  'domain_too_long',
  'address_literal_invalid',
  'address_too_long',
] as const;

/** One of SYNTAX_PROBLEMS. */
export type SyntaxProblem = (typeof SYNTAX_PROBLEMS)[number];

/** Why a string is not a valid envelope address. */
export interface SyntaxFailure {
  problem: SyntaxProblem;
  /** A sentence a person can act on, e.g. `The local part has two consecutive dots`. */
  detail: string;
}

/** Shows one character in a detail message, escaping the ones that would be unreadable. */
export function showChar(ch: string): string {
  return ch === ' ' ? 'a space' : JSON.stringify(ch);
}
