/**
 * The bridge's one error type and its codes, for every layer: the LIS client,
 * the analyzer links, the message nodes, the journal. It carries only what is
 * safe to show an operator (never request headers, so never the Bearer token)
 * and what a flow needs to decide what to do next; Catch nodes get it as
 * msg.error.
 */
export type LisErrorCode =
  | 'NOT_CONFIGURED' // no URL for the endpoint, or a ${VAR} that is not set
  | 'INVALID_URL' // the configured address is not an http(s) URL
  | 'INVALID_INPUT' // the message given to the node breaks the spec's schema
  | 'HTTP_STATUS' // the LIS answered with a status that is not a success
  | 'REDIRECT' // the LIS answered 3xx; redirects are not followed
  | 'TIMEOUT' // no complete answer within the configured time-out
  | 'NETWORK' // the connection failed (refused, reset, DNS, TLS ...)
  | 'INVALID_RESPONSE' // the LIS answered 2xx with a body that is not JSON or breaks the schema
  | 'SAMPLE_MISMATCH' // every attempt returned an order for another sample
  | 'CANCELLED' // the node was stopped (redeploy, shutdown) mid-request
  | 'UNMAPPED_TESTS' // test-mapper: LIS tests with no instrument test, when set to fail
  | 'SEND_FAILED' // astm-link: the analyzer did not accept a message we sent
  | 'CONNECTION_CLOSED' // astm-link: the TCP connection a message was on, or answers, closed
  | 'NOT_CONNECTED' // astm-link over TCP: no analyzer is connected to send to
  | 'UNKNOWN_ANALYZER' // astm-link over TCP: msg.analyzer names no connected analyzer
  | 'AMBIGUOUS_ANALYZER' // astm-link over TCP: several analyzers are connected and the message names none (or several)
  | 'NO_SESSION' // astm-link set to TCP: bytes arrived without the TCP session they came on
  | 'TRANSPORT_MISMATCH' // a link set to serial behind tcp in: TCP input refused (not acknowledged), nothing written to every connection
  | 'PORT_MISSING' // a link's serial port device does not exist (wrong path, unplugged USB adapter)
  | 'PORT_SHARED' // another link reads the same serial device and keeps it: this link refuses the line
  | 'ORDER_REFUSED' // astm-message: an order the analyzer can no longer take (query cancelled or expired)
  | 'JOURNAL' // the result journal could not store something: not acknowledged, not sent
  | 'STUCK' // astm-link: a message replayed after a restart never reached the LIS; an operator replays or dismisses it
  | 'HELD' // lis-send-results: results held (failed or uncertain) longer than the warning age, or not all resent
  | 'LINK_QUIET' // an analyzer link: no message for longer than its expected-activity rule allows, inside the rule's hours
  | 'LINK_DOWN' // an analyzer link: its transport (port, connection) down for longer than its limit
  | 'FOLDER_MISSING' // folder-link: the watched folder cannot be listed (missing, not a folder, no permission)
  | 'FILE_ERROR' // folder-link: a file put in error/ (unreadable, larger than the size cap)
  | 'FILE_CHANGED' // folder-link: a file changed after it was taken; the new version is read as a new file
  | 'FILE_NOT_MOVED' // folder-link: a file could not be moved to done/ or error/
  | 'FILE_GREW_AFTER_MOVE' // folder-link: a file grew in done/ after it was moved there and could not be moved back
  | 'FOLDER_SHARED' // folder-link: another folder-link or Node-RED process reads the same folder for the same names: this one takes nothing
  | 'FILE_NOT_TAKEN'; // folder-link: a file left in the folder unread (a symbolic link, a name that cannot be opened)

/** What a transient failure allows: another attempt after the transient back-off. */
export type RetryKind = 'transient' | 'mismatch';

export interface LisErrorInit {
  code: LisErrorCode;
  status?: number;
  errors?: string[];
  requestId?: string;
  retry?: RetryKind;
  /** The request provably never reached the LIS (connection refused, no such host, TLS refused, no URL). */
  notSent?: boolean;
}

export class LisError extends Error {
  readonly code: LisErrorCode;
  readonly status?: number;
  readonly errors?: string[];
  readonly requestId?: string;
  /** Set when the failure may be retried under spec 7 / 8; the caller decides whether it still may. */
  readonly retry?: RetryKind;
  /** The request provably never reached the LIS: sending it again cannot make a duplicate. */
  readonly notSent: boolean;
  /** How many HTTP attempts were made before giving up (set by the retry loop). */
  attempts?: number;
  /** X-Request-ID of every attempt, oldest first (set by the retry loop). */
  requestIds?: string[];

  constructor(message: string, init: LisErrorInit) {
    super(message);
    this.name = 'LisError';
    this.code = init.code;
    if (init.status !== undefined) this.status = init.status;
    if (init.errors !== undefined && init.errors.length > 0) this.errors = init.errors;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.retry !== undefined) this.retry = init.retry;
    this.notSent = init.notSent === true || init.code === 'NOT_CONFIGURED' || init.code === 'INVALID_URL';
    // Node-RED copies an error's own `code`, `stack` and `cause` into the msg.error a
    // Catch node receives, and nothing else: `cause` carries the LIS-side details there.
    const cause: Record<string, unknown> = {};
    if (this.status !== undefined) cause.status = this.status;
    if (this.errors !== undefined) cause.errors = this.errors;
    if (this.requestId !== undefined) cause.requestId = this.requestId;
    if (Object.keys(cause).length > 0) Object.defineProperty(this, 'cause', { value: cause, enumerable: false, writable: true, configurable: true });
  }

  /** Node-RED logs and Catch messages use toString(): the message alone reads best there. */
  override toString(): string {
    return this.message;
  }

  /** The shape flows see as `msg.error`, the same for every node (docs/design-notes.md). */
  toMsgError(): { message: string; code: LisErrorCode; status?: number; errors?: string[]; requestId?: string; attempts?: number; requestIds?: string[] } {
    const out: ReturnType<LisError['toMsgError']> = { message: this.message, code: this.code };
    if (this.status !== undefined) out.status = this.status;
    if (this.errors !== undefined) out.errors = [...this.errors];
    if (this.requestId !== undefined) out.requestId = this.requestId;
    if (this.attempts !== undefined) out.attempts = this.attempts;
    if (this.requestIds !== undefined && this.requestIds.length > 0) out.requestIds = [...this.requestIds];
    return out;
  }
}

export function invalidInput(message: string, errors: string[]): LisError {
  return new LisError(errors.length > 0 ? `${message}: ${errors.join('; ')}` : message, { code: 'INVALID_INPUT', errors });
}

/** The text of anything thrown, for messages and logs. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
