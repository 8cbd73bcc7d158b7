/** A LIS2-A2 result upload for one sample, glucose and creatinine (generic dialect): the journal and replay tests' traffic. */
export function resultMessage(sample: string, glucose = '5.4'): string {
  return (
    'H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2|20261121094500\r' +
    `P|1||P-${sample}\r` +
    `O|1|${sample}||^^^GLU\\^^^CREA|R\r` +
    `R|1|^^^GLU|${glucose}|mmol/L|3.9-6.1|N||F||||20261121094400\r` +
    'R|2|^^^CREA|88|umol/L|45-90|N||F||||20261121094400\r' +
    'L|1|N\r'
  );
}
