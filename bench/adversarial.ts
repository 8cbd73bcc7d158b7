/**
 * Section 7: messages shaped to be slow (issue 23) beside an ordinary message
 * of the same size, for HL7 and ASTM: a field of thousands of repetitions,
 * components, subcomponents read at every OBX, escape sequences, lone escape
 * characters, many tiny segments. Each is read as a flow reads it (HL7:
 * parseHl7Bytes and the lab reading of the cobas pro dialect; ASTM:
 * decodeMessage and toLabEvents of the generic dialect), and its CPU time per
 * byte is set against the ordinary message's. Quick mode judges the worst
 * shape of each protocol (bench/limits.ts): at most 3x the ordinary message.
 * A 39 KB ORU whose NTE-3 held 20,000 repetitions took 8 s before: thousands
 * of times the ordinary message's time per byte, and growing with its size.
 * test/unit/linear-work.test.ts proves the same by counting work, not time.
 */
import { parseHl7Bytes } from '../lib/protocols/hl7';
import { hl7LabEventsOf } from '../lib/protocols/hl7/lab';
import { HL7_ROCHE_COBAS_PRO } from '../lib/protocols/hl7/dialects';
import { decodeMessage } from '../lib/protocols/astm/records';
import { toLabEvents } from '../lib/protocols/astm/lab';
import { GENERIC_LIS2A2 } from '../lib/protocols/astm/dialects';
import type { Report } from './report';
import { median } from './stats';

export interface AdversarialSizes {
  /** Size of each message, in bytes (about). */
  messageBytes: number;
  /** Bytes read per shape and round. */
  bytesPerRound: number;
  rounds: number;
}

const MSH = 'MSH|^~\\&|cobas pro||Host||20240101120000||OUL^R22^OUL_R22|1|P|2.5.1||||||UNICODE UTF-8\r';
const OBX = (i: number) => `OBX|${i}|NM|20490^20490^99ROC^^^IHELAW|1|3.5|mg/L^^UCUM|0.5-5.0|N|||F|||20240101120000||||c503^ROCHE\r`;
const fill = (bytes: number, item: (i: number) => string, sep = ''): string => {
  let out = '';
  for (let i = 1; out.length < bytes; i++) out += (i > 1 ? sep : '') + item(i);
  return out;
};

function hl7Shapes(size: number): Record<string, Buffer> {
  const head = `${MSH}SPM|1|S-1&BARCODE\rOBR|1\r`;
  const one = `${head}OBX|1|NM|20490^20490^99ROC||3|mg/L|||||F\r`;
  const b = (text: string) => Buffer.from(text, 'latin1');
  return {
    ordinary: b(head + fill(size - head.length, OBX)),
    'NTE-3 repetitions': b(`${one}NTE|1||${fill(size, () => 'c', '~')}\r`),
    'OBX-8 flags': b(`${head}OBX|1|NM|20490^20490^99ROC||3|mg/L||${fill(size, () => 'H', '~')}|||F\r`),
    'OBX-5 components': b(`${head}OBX|1|NM|20490^20490^99ROC||${fill(size, () => 'v', '^')}|mg/L|||||F\r`),
    'SPM-2 repetitions, many OBX': b(`${MSH}SPM|1|${fill(size / 2, () => 'S-1&BARCODE', '~')}\rOBR|1\r${fill(size / 2, OBX)}`),
    'escape sequences': b(`${head}OBX|1|ST|20490^20490^99ROC||${fill(size, () => '\\S\\\\T\\\\X41\\', 'a')}|mg/L|||||F\r`),
    'lone escape characters': b(`${head}OBX|1|ST|20490^20490^99ROC||${'\\'.repeat(size / 2)}x\\Z${'y'.repeat(size / 2)}|mg/L|||||F\r`),
    'empty segments of NTE': b(`${one}${fill(size, () => 'NTE|\r')}`),
  };
}

function astmShapes(size: number): Record<string, string> {
  const head = 'H|\\^&|||Analyzer|||||||P|LIS2-A2|20240101120000\rP|1\rO|1|S-1||^^^GLU|R\r';
  const tail = 'L|1|N\r';
  return {
    ordinary: head + fill(size - head.length, (i) => `R|${i}|^^^GLU^1|5.5|mmol/L|3.9-6.1|N||F||||20240101120000\r`) + tail,
    'R-7 flag repeats': `${head}R|1|^^^GLU|5|mg/dL||${fill(size, () => 'H', '\\')}||F\r${tail}`,
    'R-4 components': `${head}R|1|^^^GLU|${fill(size, () => '5', '^')}|mg/dL||N||F\r${tail}`,
    'escape sequences': `${head}R|1|^^^GLU|${fill(size, () => '&S&&F&&X41&', 'a')}|mg/dL||N||F\r${tail}`,
    'lone escape characters': `${head}R|1|^^^GLU|${'&'.repeat(size / 2)}x&Z${'y'.repeat(size / 2)}|mg/dL||N||F\r${tail}`,
    'C records': `${head}R|1|^^^GLU|5\r${fill(size, () => 'C|1|I|c|G\r')}${tail}`,
  };
}

/** CPU seconds per MB of reading `bytes` over and over, median of the rounds. */
function cpuPerMB(read: () => unknown, bytes: number, sizes: AdversarialSizes): number {
  const times = Math.max(1, Math.round(sizes.bytesPerRound / bytes));
  read(); // warm up
  const per: number[] = [];
  for (let r = 0; r < sizes.rounds; r++) {
    const cpu = process.cpuUsage();
    for (let t = 0; t < times; t++) read();
    const used = process.cpuUsage(cpu);
    per.push((used.user + used.system) / 1e6 / ((times * bytes) / 1e6));
  }
  return median(per);
}

export function benchAdversarial(report: Report, sizes: AdversarialSizes): void {
  const section = '7 adversarial shapes';
  const judge = (protocol: 'hl7' | 'astm', shapes: Record<string, () => unknown>, bytesOf: Record<string, number>) => {
    const perMB: Record<string, number> = {};
    for (const [name, read] of Object.entries(shapes)) perMB[name] = cpuPerMB(read, bytesOf[name]!, sizes);
    const ordinary = perMB.ordinary!;
    let worst = '';
    for (const name of Object.keys(perMB)) if (name !== 'ordinary' && (worst === '' || perMB[name]! > perMB[worst]!)) worst = name;
    const label = protocol === 'hl7' ? 'HL7' : 'ASTM';
    report.add({ key: `adversarial.${protocol}.ordinary.msPerMB`, section, label: `${label}: an ordinary message of ${(sizes.messageBytes / 1000).toFixed(0)} kB, CPU per MB`, value: ordinary * 1000, unit: 'ms/MB' });
    report.add({
      key: `adversarial.${protocol}.worstOverOrdinary`,
      section,
      label: `${label}: the slowest shape's CPU per byte over the ordinary message's`,
      value: perMB[worst]! / ordinary,
      unit: 'x',
      note: `slowest: ${worst}; ${Object.entries(perMB)
        .filter(([n]) => n !== 'ordinary')
        .map(([n, v]) => `${n} ${(v / ordinary).toFixed(2)}x`)
        .join(', ')}`,
    });
    report.detail(`adversarial.${protocol}`, { perMB, bytes: bytesOf });
  };

  const hl7 = hl7Shapes(sizes.messageBytes);
  judge(
    'hl7',
    Object.fromEntries(Object.entries(hl7).map(([n, b]) => [n, () => hl7LabEventsOf(parseHl7Bytes(b), HL7_ROCHE_COBAS_PRO, 'UTC')])),
    Object.fromEntries(Object.entries(hl7).map(([n, b]) => [n, b.length])),
  );
  const astm = astmShapes(sizes.messageBytes);
  judge(
    'astm',
    Object.fromEntries(Object.entries(astm).map(([n, t]) => [n, () => toLabEvents(decodeMessage(t), GENERIC_LIS2A2, { timeZone: 'UTC' })])),
    Object.fromEntries(Object.entries(astm).map(([n, t]) => [n, t.length])),
  );
}
