import { ServiceError } from '@svc/core';
import type { AddressClassification, IpSyntaxRule } from './types.js';

/** Why an input was refused: a syntax rule, or `special_purpose` for a valid but non-public address. */
export type IpRule = IpSyntaxRule | 'special_purpose';

/** `ServiceError('invalid_ip')` with the rule that failed, for callers that want more than the message. */
export class InvalidIpError extends ServiceError {
  /** The input as given (converted to a string when it was not one). */
  readonly input: string;
  readonly rule: IpRule;
  /** For `special_purpose`: the block that rules the address out. */
  readonly classification: AddressClassification | null;

  constructor(
    input: string,
    rule: IpRule,
    message: string,
    classification: AddressClassification | null = null,
  ) {
    super('invalid_ip', message);
    this.input = input;
    this.rule = rule;
    this.classification = classification;
  }
}
