/**
 * The link state machine for a framing: E1381 frames (AstmLink), or plain
 * CR-separated records with no link layer (UnframedLink), for analyzers that
 * send records over TCP as they are. One place, so the node, the simulator
 * and the bench build the same machine from the same options.
 */
import { AstmLink, type AstmLinkOptions } from './link';
import type { LinkMachine } from '../../link/driver';
import { UnframedLink } from './unframed-link';

export function linkMachine(framed: boolean, options: Partial<AstmLinkOptions>): LinkMachine {
  if (framed) return new AstmLink(options);
  return new UnframedLink({
    ...(options.receiveTimeoutMs === undefined ? {} : { receiveTimeoutMs: options.receiveTimeoutMs }),
    ...(options.messageIdPrefix === undefined ? {} : { messageIdPrefix: options.messageIdPrefix }),
    ...(options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes }),
  });
}
