/** An order (or answer) that cannot be written for this analyzer; the message says which field and why. */
export class LabOrderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabOrderError';
  }
}
