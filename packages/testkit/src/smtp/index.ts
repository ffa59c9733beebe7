export { loadSmtpTestCertificate, type SmtpTlsCredentials } from './credentials.js';
export {
  type SmtpFleet,
  type SmtpFleetHost,
  type SmtpFleetOptions,
  type SmtpHostSpec,
  type SmtpServerOptions,
  startSmtpFleet,
  startSmtpServer,
} from './fleet.js';
export { fleetProbeOptions } from './probe-options.js';
export type { SmtpSessionEnd, SmtpSessionRecord, SmtpTranscriptEntry } from './recording.js';
export type { SmtpReply } from './reply.js';
export type {
  SmtpDropRule,
  SmtpFinalRcptAction,
  SmtpGreylistSpec,
  SmtpRcptAction,
  SmtpReplySpec,
  SmtpScript,
  SmtpStage,
} from './script.js';
