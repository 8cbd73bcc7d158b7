/** HL7's lab events: the ASTM ones (lib/lab/types.ts), so the LIS side is the same, plus encapsulated data kept aside. */
import type { InstrumentResult, LabEvent } from '../../../lab/types';

/**
 * An OBX of a value type the LIS does not take (ED: a histogram or image), counted and reported aside.
 * Its sample, code and index are named as lib/lab's result names them, so a flow reads both alike.
 */
export interface EncapsulatedItem extends Pick<InstrumentResult, 'SampleNumber' | 'instrumentCode' | 'record'> {
  valueType: string;
  /** Characters of OBX-5 (the data itself is not copied into the event). */
  length: number;
}

export type Hl7LabEvent = LabEvent | { type: 'encapsulated'; items: EncapsulatedItem[]; sender?: string };
