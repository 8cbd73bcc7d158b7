/**
 * What the LIS client tells whoever watches it (the metrics): each HTTP
 * request with its outcome and duration, and each retry. Outcomes are a short
 * closed set, so a monitoring label made of them stays small; never a URL,
 * a body, a sample number or a token.
 */
import type { LisError } from '../errors';
import type { EndpointName } from './endpoints';

/**
 * ok, http_4xx, http_5xx, timeout, network, redirect, invalid_response,
 * sample_mismatch, cancelled, and (never expected from a request) the code of
 * any other error, lower case.
 */
export type RequestOutcome = string;

export interface LisObserver {
  /** One HTTP request (an attempt) ended; `seconds` from its start to its answer or failure, reading the answer included. */
  request(endpoint: EndpointName, outcome: RequestOutcome, seconds: number): void;
  /** The client waits to try `endpoint` again after the failure `outcome`. */
  retry(endpoint: EndpointName, outcome: RequestOutcome): void;
}

export function outcomeOf(err: LisError | undefined): RequestOutcome {
  if (err === undefined) return 'ok';
  if (err.code === 'HTTP_STATUS' && err.status !== undefined) return `http_${Math.floor(err.status / 100)}xx`;
  return err.code.toLowerCase();
}
