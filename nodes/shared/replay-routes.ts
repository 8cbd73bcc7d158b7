/**
 * An operator's replay of captured traffic through the deployed flow (lib/replay):
 *
 *   POST /lis-bridge/links/:id/replay  { text? | from?, to?, send?: 'none'|'new'|'all', wait? }
 *   GET  /lis-bridge/replays/:id
 *
 * The messages (a paste, or what the link's trace holds between from and to)
 * leave the deployed link's message output as if just received, marked
 * msg.<protocol>.replay = { id, mode, message }, and the nodes on the path
 * fill in the report (nodes/shared/replays.ts). The POST answers the report
 * once the flow is done with them, or after `wait` seconds (default 10) with
 * settled: false; GET gives it later. A dry run (send "none", the default)
 * sends nothing, so it needs lis.read; sending needs lis.write.
 */
import { randomUUID } from 'node:crypto';
import type { NodeAPI } from 'node-red';
import type { NextFunction, Request, Response } from 'express';
import { LisError, messageOf } from '../../lib/errors';
import { readReplayRequest, REPLAY_LIMITS, ReplayRun, sizeText } from '../../lib/replay';
import { traceRange } from '../../lib/trace';
import { answerError, installRoutesOnce } from './admin';
import { keepRun, replayInjector, replayRun } from './replays';

const DEFAULT_WAIT_S = 10;
const MAX_WAIT_S = 60;

export function installReplayRoutes(RED: NodeAPI): void {
  installRoutesOnce(RED, 'replay', () => {
    const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void; post: (path: string, ...h: unknown[]) => void };
    const bad = (res: Response, status: number, message: string, errors: string[] = []) => answerError(res, status, new LisError(message, { code: 'INVALID_INPUT', errors }));
    // The permission follows what the replay may do: a dry run only reads.
    const permitted = (req: Request, res: Response, next: NextFunction) => {
      const send = (req.body as { send?: unknown } | undefined)?.send;
      return (RED.auth.needsPermission(send === undefined || send === 'none' ? 'lis.read' : 'lis.write') as unknown as (q: Request, s: Response, n: NextFunction) => void)(req, res, next);
    };

    admin.post('/lis-bridge/links/:id/replay', permitted, (req: Request, res: Response) => {
      const link = String(req.params.id);
      const { request, problems } = readReplayRequest(req.body);
      if (!request) return bad(res, 400, 'replay not started', problems);
      const wait = req.body?.wait === undefined ? DEFAULT_WAIT_S : Number(req.body.wait);
      if (!Number.isFinite(wait) || wait < 0 || wait > MAX_WAIT_S) return bad(res, 400, `wait must be a number of seconds from 0 to ${MAX_WAIT_S}`);
      const injector = replayInjector(link);
      if (!injector) return bad(res, 404, `no link ${JSON.stringify(link)} is deployed: deploy the flow first (a replay goes through the deployed flow)`);
      const source = request.source;
      let text: Promise<string>;
      if (source.kind === 'paste') text = Promise.resolve(source.text);
      else {
        const trace = injector.trace();
        if (!trace) return bad(res, 409, `link ${link} keeps no trace: turn its trace on, or paste the messages instead`);
        text = trace.flush().then(() => traceRange(trace.file, source.from, source.to));
      }
      const what = source.kind === 'paste' ? 'the paste' : `the trace between ${new Date(source.from).toISOString()} and ${new Date(source.to).toISOString()}`;
      const tooLarge = (bytes: number) =>
        answerError(res, 413, new LisError(`${what} holds ${bytes} bytes of messages, more than the ${sizeText(REPLAY_LIMITS.maxTextBytes)} (${REPLAY_LIMITS.maxTextBytes} bytes) a replay takes: replay it in parts`, { code: 'INVALID_INPUT' }));
      text
        .then((t) => {
          // A paste is refused before it is read; a trace range by its messages (its lines carry times and markers too).
          if (source.kind === 'paste' && Buffer.byteLength(t, 'utf8') > REPLAY_LIMITS.maxTextBytes) return tooLarge(Buffer.byteLength(t, 'utf8'));
          const read = injector.read(t);
          const bytes = read.messages.reduce((n, m) => n + m.length, 0);
          if (bytes > REPLAY_LIMITS.maxTextBytes) return tooLarge(bytes);
          if (read.messages.length === 0) return bad(res, 422, `no message found in ${what}`, [...read.problems, ...read.notes]);
          const run = new ReplayRun({ id: randomUUID(), link, mode: request.send, source: source.kind, messages: read.messages.length, notes: read.notes, problems: read.problems, now: Date.now(), limitBytes: REPLAY_LIMITS.maxReportBytes });
          keepRun(run);
          read.messages.forEach((bytes, i) => injector.inject(bytes, { id: run.id, mode: request.send, message: i + 1 }));
          answerWhenSettled(run, wait * 1000, () => res.json(run.toJSON()));
        })
        .catch((err: unknown) => answerError(res, 500, new Error(`replay not started: ${messageOf(err)}`)));
    });

    admin.get('/lis-bridge/replays/:id', RED.auth.needsPermission('lis.read'), (req: Request, res: Response) => {
      const run = replayRun(String(req.params.id));
      if (!run) return bad(res, 404, `no replay ${JSON.stringify(String(req.params.id))}: only the last replays since Node-RED started are kept (at most ${REPLAY_LIMITS.maxKept}, ${sizeText(REPLAY_LIMITS.totalBytes)} of reports)`);
      res.json(run.toJSON());
    });
  });
}

/** Answers once the run settles, or after `waitMs` with what it has (the GET route gives the rest). */
function answerWhenSettled(run: ReplayRun, waitMs: number, answer: () => void): void {
  let answered = false;
  const finish = () => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    stop();
    answer();
  };
  const timer = setTimeout(finish, waitMs);
  const stop = run.onChange(() => {
    if (run.settled) finish();
  });
  if (run.settled) finish();
}
