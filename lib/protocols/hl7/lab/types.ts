/** HL7's lab events: the ASTM ones (lib/lab/types.ts), so the LIS side is the same, plus encapsulated data kept aside. */
import type { LabEvent } from '../../../lab/types';

/** An OBX of a value type the LIS does not take (ED: a histogram or image), counted and reported aside. */
export interface EncapsulatedItem {
  SampleNumber: string;
  instrumentCode: string;
  valueType: string;
  /** 1-based index of the OBX segment in the message. */
  record: number;
  /** Characters of OBX-5 (the data itself is not copied into the event). */
  length: number;
}

export type Hl7LabEvent = LabEvent | { type: 'encapsulated'; items: EncapsulatedItem[]; sender?: string };
