/**
 * The journal's line format. Each line is one JSON object; later lines update
 * what earlier ones said, so replaying the file in order rebuilds the state.
 * Lines are validated when read back: a damaged line is skipped and counted,
 * never trusted.
 */
import { z } from 'zod';

export const BatchStateSchema = z.enum(['sending', 'delivered', 'failed', 'uncertain', 'discarded']);
export type BatchState = z.infer<typeof BatchStateSchema>;

const ErrorInfoSchema = z.object({ code: z.string(), message: z.string(), status: z.number().optional() });
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

/** A message the analyzer sent, stored before its final ACK. */
const ReceivedSchema = z.object({
  e: z.literal('rx'),
  id: z.string(),
  link: z.string(),
  at: z.number(),
  /** The message's bytes, base64: exactly what the analyzer sent, whatever its charset. */
  data: z.string(),
  end: z.string(),
  /**
   * The analyzer's repeat of this earlier message (its final ACK may never have
   * reached the analyzer). Decided before the line is written, so no crash can
   * leave a repeat looking like a message of its own: it is settled at once.
   */
  repeatOf: z.string().optional(),
  /**
   * Where the message came from, as its link knows it, for its replay after a
   * restart: a file's name, path, size, mtime and content hash (the folder
   * link). Links that know no more than their line leave it out.
   */
  source: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});

/** What became of a received message: how many result batches it made, whether it was replayed. (Handed batches are the tx lines naming it.) */
const MessageUpdateSchema = z.object({
  e: z.literal('rxu'),
  id: z.string(),
  parts: z.number().int().nonnegative().optional(),
  replayed: z.boolean().optional(),
  /** The final ACK never went out (the transfer ended or the link closed first): the analyzer may repeat it. */
  unacked: z.boolean().optional(),
  /** Given up on: replayed, and still not settled a while later or when the flow stopped (the reason). */
  stuck: z.string().optional(),
  /** The batch whose results had nothing for the LIS, when that made it stuck. */
  stuckPart: z.number().int().nonnegative().optional(),
  /** The samples the message was about, once decoded: what an operator needs to find a stuck message. */
  samples: z.array(z.string()).optional(),
  /** The samples of each result batch (index = part): which of them a stuck message still owes the LIS. */
  partSamples: z.array(z.array(z.string())).optional(),
  note: z.string().optional(),
  /** An operator asked for a stuck message to be replayed (admin user): who acted, on the record. */
  replayBy: z.string().optional(),
});

/** A batch of results about to be sent to the LIS: written before the request leaves. */
const BatchSchema = z.object({
  e: z.literal('tx'),
  key: z.string(),
  node: z.string(),
  at: z.number(),
  message: z.string().optional(),
  part: z.number().int().nonnegative().optional(),
  samples: z.array(z.string()),
  /** The result items as the LIS gets them. */
  body: z.unknown(),
  /** The rest of the Node-RED message, so a resend after a restart gives the flow what it had. */
  msg: z.record(z.string(), z.unknown()),
  /**
   * Sent by an operator's replay (lib/replay): its id, what the operator asked
   * to send, and how many of the batch's results the LIS held already (resent
   * on purpose, with mode "all").
   */
  replay: z.object({ id: z.string(), mode: z.enum(['new', 'all']), resent: z.number().int().nonnegative() }).optional(),
});

const BatchUpdateSchema = z.object({
  e: z.literal('txu'),
  key: z.string(),
  at: z.number(),
  state: BatchStateSchema,
  error: ErrorInfoSchema.optional(),
  /** The request provably never reached the LIS (connection refused): safe to send again. */
  notSent: z.boolean().optional(),
  /** Who asked, for discards and resends (admin user or "message"). */
  by: z.string().optional(),
  /** Set when an age warning was raised for this batch, so it is raised once. */
  warned: z.boolean().optional(),
});

export const HoldKindSchema = z.enum(['unmapped', 'ambiguous', 'unvalued', 'invalid', 'unassigned', 'correction', 'qc', 'control']);
export type HoldKind = z.infer<typeof HoldKindSchema>;

/**
 * What a correction (a hold of kind correction) replaces: the value handed on before, from which file and when, and
 * where the new value comes from: its file and which of that file's values for the sample and test it is (n).
 */
const CorrectionSchema = z.object({ was: z.string(), wasFile: z.string(), wasAt: z.number(), file: z.string(), n: z.number().int().nonnegative() });
export type CorrectionInfo = z.infer<typeof CorrectionSchema>;

/**
 * Results that cannot go to the LIS as they are (test-mapper found no LIS test
 * for their code, say), held for a person: one hold per code, all of a batch's
 * in one line, so a crash leaves all or none of them. When nothing else of the
 * batch goes on (`endsPart`), the line also counts the batch handed on.
 */
const HoldSchema = z.object({
  e: z.literal('hold'),
  at: z.number(),
  /** The node that held them: it maps them again when a person sends them. */
  node: z.string(),
  link: z.string().optional(),
  message: z.string().optional(),
  part: z.number().int().nonnegative().optional(),
  endsPart: z.boolean().optional(),
  /** The rest of the flow's message, as for a batch. */
  msg: z.record(z.string(), z.unknown()),
  holds: z.array(
    z.object({
      id: z.string(),
      kind: HoldKindSchema,
      /** The instrument code (`CODE` or `CODE/SUB`) the hold is about; '' for results that are not results. */
      code: z.string(),
      results: z.array(z.object({ result: z.unknown(), reason: z.string(), correction: CorrectionSchema.optional() })),
    }),
  ),
});

/**
 * A person acted on a hold: sending it (its batch `hold:<id>` is its end), dismissing it with a reason, or, for a
 * control the table did not identify, evaluating it once identified (it ends in the QC store).
 */
const HoldUpdateSchema = z.object({
  e: z.literal('holdu'),
  id: z.string(),
  at: z.number(),
  action: z.enum(['send', 'dismiss', 'evaluate']),
  by: z.string(),
  note: z.string().optional(),
});

const HandedValueSchema = z.object({ sample: z.string(), code: z.string(), sub: z.string().optional(), n: z.number().int().nonnegative(), value: z.string() });
export type HandedValueEntry = z.infer<typeof HandedValueSchema>;

/**
 * Values a link handed on toward the LIS from one batch of a message (lib/journal/handed-values.ts), and those it
 * did not send again because an earlier version of the same file handed them on already (`repeated`, each with
 * why). Or, with `hold`, the new values of a correction a person sent. With `endsPart` (nothing of the batch goes
 * on) the line also counts the batch handed on.
 */
const HandedSchema = z.object({
  e: z.literal('val'),
  at: z.number(),
  link: z.string(),
  message: z.string(),
  /** The message's name (a file's): a later file under the same name is compared with these values. */
  name: z.string(),
  part: z.number().int().nonnegative().optional(),
  endsPart: z.boolean().optional(),
  via: z.enum(['file', 'correction']),
  hold: z.string().optional(),
  values: z.array(HandedValueSchema),
  repeated: z.array(HandedValueSchema.extend({ reason: z.string() })).optional(),
});
export type HandedEntry = z.infer<typeof HandedSchema>;

export const EntrySchema = z.discriminatedUnion('e', [ReceivedSchema, MessageUpdateSchema, BatchSchema, BatchUpdateSchema, HoldSchema, HoldUpdateSchema, HandedSchema]);
export type HoldEntry = z.infer<typeof HoldSchema>;
export type Entry = z.infer<typeof EntrySchema>;
export type BatchEntry = z.infer<typeof BatchSchema>;
