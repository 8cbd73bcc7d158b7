/**
 * Every HL7 fixture message the analyzer sent, read with its dialect into lab
 * events, value by value: for results and QC each row is
 * sample | code[/sub-code] | value | units | reference range | flags (~) | status | completion (UTC, or as sent).
 * The values are those in the captures (test/fixtures/hl7, test/fixtures/SOURCES.md).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { allHl7Messages } from "../support/hl7-fixtures";
import { findHl7Profile } from "../../lib/protocols/hl7/dialects";
import { hl7LabEventsOf } from "../../lib/protocols/hl7/lab";
import type { InstrumentResult } from "../../lib/lab/types";

interface Expected {
  dialect: string;
  results?: string[];
  qc?: string[];
  query?: string[];
  other?: string;
  encapsulated?: string[];
  unassigned?: string[];
  problems?: string[];
}

const row = (r: InstrumentResult) => [r.SampleNumber, r.instrumentCode + (r.instrumentSubCode ? "/" + r.instrumentSubCode : ""), r.Result, r.units ?? "", r.referenceRange ?? "", (r.flags ?? []).join("~"), r.status ?? "", r.completedAt ?? r.completedAtRaw ?? ""].join(" | ");

const EXPECTED: Record<string, Expected> = {
  "mindray-bc5380-oru-r01-manual.txt#1": {
    "dialect": "mindray-bc-hl7",
    "results": [
      "20071207011 | Take Mode | O |  |  |  | F | ",
      "20071207011 | Blood Mode | W |  |  |  | F | ",
      "20071207011 | Test Mode | CBC |  |  |  | F | ",
      "20071207011 | Ref Group | Woman |  |  |  | F | ",
      "20071207011 | Age | 18 | yr |  |  | F | ",
      "20071207011 | WBC | 9.81 | 10*9/L | 4.00-10.00 | N | F | ",
      "20071207011 | BAS# |  | 10*9/L | 0.00-0.10 |  | F | ",
      "20071207011 | BAS% |  |  | 0.000-0.010 |  | F | ",
      "20071207011 | NEU# |  | 10*9/L | 2.00-7.00 |  | F | ",
      "20071207011 | NEU% |  |  | 0.500-0.700 |  | F | ",
      "20071207011 | EOS# |  | 10*9/L | 0.02-0.50 |  | F | ",
      "20071207011 | EOS% |  |  | 0.005-0.050 |  | F | ",
      "20071207011 | LYM# |  | 10*9/L | 0.80-4.00 |  | F | ",
      "20071207011 | LYM% |  |  | 0.200-0.400 |  | F | ",
      "20071207011 | MON# |  | 10*9/L | 0.12-0.80 |  | F | ",
      "20071207011 | MON% |  |  | 0.030-0.080 |  | F | ",
      "20071207011 | *ALY# |  | 10*9/L | 0.00-0.20 |  | F | ",
      "20071207011 | *ALY% |  |  | 0.000-0.020 |  | F | ",
      "20071207011 | *LIC# |  | 10*9/L | 0.00-0.20 |  | F | ",
      "20071207011 | *LIC% |  |  | 0.000-0.025 |  | F | ",
      "20071207011 | RBC | 4.53 | 10*12/L | 3.50-5.00 | N | F | ",
      "20071207011 | HGB | 65 | g/L | 110-150 | L | F | ",
      "20071207011 | MCV | 89.5 | fL | 80.0-100.0 | N | F | ",
      "20071207011 | MCH | 14.4 | pg | 27.0-31.0 | L | F | ",
      "20071207011 | MCHC | 160 | g/L | 320-360 | L | F | ",
      "20071207011 | RDW-CV | 0.133 |  | 0.115-0.145 | N | F | ",
      "20071207011 | RDW-SD | 50.9 | fL | 35.0-56.0 | N | F | ",
      "20071207011 | HCT | 0.405 |  | 0.370-0.480 | N | F | ",
      "20071207011 | PLT | 212 | 10*9/L | 100-300 | N | F | ",
      "20071207011 | MPV | 6.6 | fL | 7.0-11.0 | L | F | ",
      "20071207011 | PDW | 15.4 |  | 15.0-17.0 | N | F | ",
      "20071207011 | PCT | 1.40 | mL/L | 1.08-2.82 | N | F | ",
      "20071207011 | Anemia | T |  |  |  | F | ",
      "20071207011 | Hypochromia | T |  |  |  | F | ",
      "20071207011 | WBC Histogram. Left Line | 7 |  |  |  | F | ",
      "20071207011 | WBC Histogram. Right Line | 65 |  |  |  | F | ",
      "20071207011 | WBC Histogram. Middle Line | 30 |  |  |  | F | ",
      "20071207011 | RBC Histogram. Left Line | 26 |  |  |  | F | ",
      "20071207011 | RBC Histogram. Right Line | 164 |  |  |  | F | ",
      "20071207011 | PLT Histogram. Left Line | 3 |  |  |  | F | ",
      "20071207011 | PLT Histogram. Right Line | 43 |  |  |  | F | ",
      "20071207011 | Myeloblasts%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Promyelocytes%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Myelocytes%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Metamyelocyte%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Neuts Band%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Neuts Seg%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Eosinophils%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Basophils%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Lymphoblasts%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Prolymphocytes%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Lymphocytes%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Abnormal Lymphs%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Monoblasts%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Promonocytes%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Monocytes%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | NRBCs%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Reticulocytes%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Undefined Cells%. Manual | 0.0 | % |  |  | F | ",
      "20071207011 | Other Abnormal Cells%. Manual | 0.0 | % |  |  | F | "
    ],
    "encapsulated": [
      "20071207011 | WBC Histogram. BMP | ED",
      "20071207011 | RBC Histogram. BMP | ED",
      "20071207011 | PLT Histogram. BMP | ED",
      "20071207011 | WBC DIFF Scattergram. BMP | ED"
    ]
  },
  "mindray-bc5380-oru-r01-xr-qc-manual.txt#1": {
    "dialect": "mindray-bc-hl7",
    "qc": [
      "6 | Qc Level | M |  |  |  | F | ",
      "6 | Take Mode | C |  |  |  | F | ",
      "6 | Blood Mode | W |  |  |  | F | ",
      "6 | WBC | 0.00 | 10*9/L |  |  | F | ",
      "6 | BAS# | ***.** | 10*9/L |  |  | F | ",
      "6 | BAS% | **.* | % |  |  | F | ",
      "6 | NEU# | ***.** | 10*9/L |  |  | F | ",
      "6 | NEU% | **.* | % |  |  | F | ",
      "6 | EOS# | ***.** | 10*9/L |  |  | F | ",
      "6 | EOS% | **.* | % |  |  | F | ",
      "6 | LYM# | ***.** | 10*9/L |  |  | F | ",
      "6 | LYM% | **.* | % |  |  | F | ",
      "6 | MON# | ***.** | 10*9/L |  |  | F | ",
      "6 | MON% | **.* | % |  |  | F | ",
      "6 | RBC | 0.02 | 10*12/L |  |  | F | ",
      "6 | HGB | 0 | g/L |  |  | F | ",
      "6 | MCV | ***.* | fL |  |  | F | ",
      "6 | MCH | ***.* | pg |  |  | F | ",
      "6 | MCHC | **** | g/L |  |  | F | ",
      "6 | RDW-CV | **.* | % |  |  | F | ",
      "6 | RDW-SD | ***.* | fL |  |  | F | ",
      "6 | HCT | 0.0 | % |  |  | F | ",
      "6 | PLT | 4 | 10*9/L |  |  | F | ",
      "6 | MPV | **.* | fL |  |  | F | ",
      "6 | PDW | **.* |  |  |  | F | ",
      "6 | PCT | .*** | % |  |  | F | ",
      "6 | GRAN-X | 6 |  |  |  | F | ",
      "6 | GRAN-Y | 32 |  |  |  | F | ",
      "6 | GRAN-Y(W) | 20 |  |  |  | F | ",
      "6 | WBC-MCV | 83 |  |  |  | F | ",
      "6 | WBC Histogram. Left Line | 10 |  |  |  | F | ",
      "6 | WBC Histogram. Right Line | 72 |  |  |  | F | ",
      "6 | WBC Histogram. Middle Line | 37 |  |  |  | F | ",
      "6 | RBC Histogram. Left Line | 10 |  |  |  | F | ",
      "6 | RBC Histogram. Right Line | 250 |  |  |  | F | ",
      "6 | PLT Histogram. Left Line | 3 |  |  |  | F | ",
      "6 | PLT Histogram. Right Line | 24 |  |  |  | F | ",
      "6 | Qc Level | M |  |  |  | F | ",
      "6 | Take Mode | C |  |  |  | F | ",
      "6 | Blood Mode | W |  |  |  | F | ",
      "6 | WBC | 0.00 | 10*9/L |  |  | F | ",
      "6 | BAS# | ***.** | 10*9/L |  |  | F | ",
      "6 | BAS% | **.* | % |  |  | F | ",
      "6 | NEU# | ***.** | 10*9/L |  |  | F | ",
      "6 | NEU% | **.* | % |  |  | F | ",
      "6 | EOS# | ***.** | 10*9/L |  |  | F | ",
      "6 | EOS% | **.* | % |  |  | F | ",
      "6 | LYM# | ***.** | 10*9/L |  |  | F | ",
      "6 | LYM% | **.* | % |  |  | F | ",
      "6 | MON# | ***.** | 10*9/L |  |  | F | ",
      "6 | MON% | **.* | % |  |  | F | ",
      "6 | RBC | 0.02 | 10*12/L |  |  | F | ",
      "6 | HGB | 0 | g/L |  |  | F | ",
      "6 | MCV | ***.* | fL |  |  | F | ",
      "6 | MCH | ***.* | pg |  |  | F | ",
      "6 | MCHC | **** | g/L |  |  | F | ",
      "6 | RDW-CV | **.* | % |  |  | F | ",
      "6 | RDW-SD | ***.* | fL |  |  | F | ",
      "6 | HCT | 0.0 | % |  |  | F | ",
      "6 | PLT | 5 | 10*9/L |  |  | F | ",
      "6 | MPV | **.* | fL |  |  | F | ",
      "6 | PDW | **.* |  |  |  | F | ",
      "6 | PCT | .*** | % |  |  | F | ",
      "6 | GRAN-X | 28 |  |  |  | F | ",
      "6 | GRAN-Y | 19 |  |  |  | F | ",
      "6 | GRAN-Y(W) | 20 |  |  |  | F | ",
      "6 | WBC-MCV | 60 |  |  |  | F | ",
      "6 | WBC Histogram. Left Line | 10 |  |  |  | F | ",
      "6 | WBC Histogram. Right Line | 72 |  |  |  | F | ",
      "6 | WBC Histogram. Middle Line | 37 |  |  |  | F | ",
      "6 | RBC Histogram. Left Line | 10 |  |  |  | F | ",
      "6 | RBC Histogram. Right Line | 250 |  |  |  | F | ",
      "6 | PLT Histogram. Left Line | 3 |  |  |  | F | ",
      "6 | PLT Histogram. Right Line | 24 |  |  |  | F | ",
      "6 | WBC | 0.00 | 10*9/L |  |  | F | ",
      "6 | BAS# | ***.** | 10*9/L |  |  | F | ",
      "6 | BAS% | **.* | % |  |  | F | ",
      "6 | NEU# | ***.** | 10*9/L |  |  | F | ",
      "6 | NEU% | **.* | % |  |  | F | ",
      "6 | EOS# | ***.** | 10*9/L |  |  | F | ",
      "6 | EOS% | **.* | % |  |  | F | ",
      "6 | LYM# | ***.** | 10*9/L |  |  | F | ",
      "6 | LYM% | **.* | % |  |  | F | ",
      "6 | MON# | ***.** | 10*9/L |  |  | F | ",
      "6 | MON% | **.* | % |  |  | F | ",
      "6 | RBC | 0.02 | 10*12/L |  |  | F | ",
      "6 | HGB | 0 | g/L |  |  | F | ",
      "6 | MCV | ***.* | fL |  |  | F | ",
      "6 | MCH | ***.* | pg |  |  | F | ",
      "6 | MCHC | **** | g/L |  |  | F | ",
      "6 | RDW-CV | **.* | % |  |  | F | ",
      "6 | RDW-SD | ***.* | fL |  |  | F | ",
      "6 | HCT | 0.0 | % |  |  | F | ",
      "6 | PLT | 5 | 10*9/L |  |  | F | ",
      "6 | MPV | **.* | fL |  |  | F | ",
      "6 | PDW | **.* |  |  |  | F | ",
      "6 | PCT | .*** | % |  |  | F | ",
      "6 | GRAN-X | 17 |  |  |  | F | ",
      "6 | GRAN-Y | 26 |  |  |  | F | ",
      "6 | GRAN-Y(W) | 20 |  |  |  | F | ",
      "6 | WBC-MCV | 72 |  |  |  | F | "
    ],
    "encapsulated": [
      "6 | WBC Histogram. BMP | ED",
      "6 | RBC Histogram. BMP | ED",
      "6 | PLT Histogram. BMP | ED",
      "6 | WBC DIFF Scattergram. BMP | ED",
      "6 | WBC Histogram. BMP | ED",
      "6 | RBC Histogram. BMP | ED",
      "6 | PLT Histogram. BMP | ED",
      "6 | WBC DIFF Scattergram. BMP | ED"
    ]
  },
  "mindray-bc5300-orm-o01-query.txt#1": {
    "dialect": "mindray-bc-hl7",
    "query": [
      "SampleID1"
    ]
  },
  "edan-h30-oru-r01.txt#1": {
    "dialect": "edan-h30",
    "results": [
      "WBL260217001 | WBC | 13.56 | 10^3/μL | 3.50-9.50 | H |  | ",
      "WBL260217001 | NEUT# | 12.93 | 10^3/μL | 1.80-6.30 | H |  | ",
      "WBL260217001 | NEUT% | 95.4 | % | 40.0-75.0 | H |  | ",
      "WBL260217001 | LYM# | 0.49 | 10^3/μL | 1.10-3.20 | L |  | ",
      "WBL260217001 | LYM% | 3.6 | % | 20.0-50.0 | L |  | ",
      "WBL260217001 | MXD# | 0.14 | 10^3/μL | 0.10-1.50 |  |  | ",
      "WBL260217001 | MXD% | 1.0 | % | 3.0-15.0 | L |  | ",
      "WBL260217001 | RBC | 4.95 | 10^6/μL | 3.80-5.80 |  |  | ",
      "WBL260217001 | HGB | 13.5 | g/dL | 11.5-17.5 |  |  | ",
      "WBL260217001 | HCT | 37.8 | % | 35.0-50.0 |  |  | ",
      "WBL260217001 | MCV | 76.4 | fL | 82.0-100.0 | L |  | ",
      "WBL260217001 | MCH | 27.2 | pg | 27.0-34.0 |  |  | ",
      "WBL260217001 | MCHC | 35.6 | g/dL | 31.6-35.4 | H |  | ",
      "WBL260217001 | RDW_SD | 35.7 | fL | 35.0-56.0 |  |  | ",
      "WBL260217001 | RDW_CV | 13.8 | % | 10.0-15.0 |  |  | ",
      "WBL260217001 | PLT | 13 | 10^3/μL | 125-350 | L |  | ",
      "WBL260217001 | PDW | 22.28 |  | 9.00-17.00 | H |  | ",
      "WBL260217001 | MPV | 11.4 | fL | 6.5-12.0 |  |  | ",
      "WBL260217001 | PCT | 0.02 | % | 0.17-0.35 | L |  | ",
      "WBL260217001 | P_LCR | 37.0 | % | 11.0-45.0 |  |  | ",
      "WBL260217001 | P_LCC | 5 | 10^3/μL | 30-90 | L |  | ",
      "WBL260217001 | PLR | 25.92 |  |  |  |  | ",
      "WBL260217001 | NLR | 26.39 |  |  |  |  | "
    ]
  },
  "analyx-panca-orm-o01-query.txt#1": {
    "dialect": "analyx-panca",
    "query": [
      "wbl2506100001"
    ]
  },
  "analyx-panca-oru-r01.txt#1": {
    "dialect": "analyx-panca",
    "results": [
      "testbarcode | WBC | 7.56 | 10^9/L | 4.00-10.00 |  | F | ",
      "testbarcode | Neu# | 4.34 | 10^9/L | 2.00-7.00 |  | F | ",
      "testbarcode | Lym# | 2.39 | 10^9/L | 0.80-4.00 |  | F | ",
      "testbarcode | Mon# | 0.45 | 10^9/L | 0.12-1.20 |  | F | ",
      "testbarcode | Eos# | 0.36 | 10^9/L | 0.02-0.50 |  | F | ",
      "testbarcode | Bas# | 0.02 | 10^9/L | 0.00-0.10 |  | F | ",
      "testbarcode | Neu% | 57.3 | % | 50.0-70.0 |  | F | ",
      "testbarcode | Lym% | 31.6 | % | 20.0-40.0 |  | F | ",
      "testbarcode | Mon% | 6.0 | % | 3.0-12.0 |  | F | ",
      "testbarcode | Eos% | 4.8 | % | 0.5-5.0 |  | F | ",
      "testbarcode | Bas% | 0.3 | % | 0.0-1.0 |  | F | ",
      "testbarcode | NLR | 1.82 |  | - |  | F | ",
      "testbarcode | PLR | 178.66 |  | - |  | F | ",
      "testbarcode | RBC | 4.94 | 10^12/L | 3.50-5.50 |  | F | ",
      "testbarcode | HGB | 13.6 | g/dL | 11.0-16.0 |  | F | ",
      "testbarcode | HCT | 41.8 | % | 37.0-54.0 |  | F | ",
      "testbarcode | MCV | 84.6 | fL | 80.0-100.0 |  | F | ",
      "testbarcode | MCH | 27.6 | pg | 27.0-34.0 |  | F | ",
      "testbarcode | MCHC | 326 | g/L | 320-360 |  | F | ",
      "testbarcode | RDW-CV | 12.7 | % | 11.0-16.0 |  | F | ",
      "testbarcode | RDW-SD | 38.9 | fL | 35.0-56.0 |  | F | ",
      "testbarcode | PLT | 427 | 10^9/L | 100-300 | H | F | ",
      "testbarcode | MPV | 7.6 | fL | 7.0-11.0 |  | F | ",
      "testbarcode | PDW-CV | 12.7 | % | 9.0-17.0 |  | F | ",
      "testbarcode | PDW-SD | 10.4 | fL | 9.0-17.0 |  | F | ",
      "testbarcode | PCT | 0.326 | % | 0.108-0.282 | H | F | ",
      "testbarcode | P-LCC | 59 | 10^9/L | 30-90 |  | F | ",
      "testbarcode | P-LCR | 13.8 | % | 11.0-45.0 |  | F | ",
      "testbarcode | Take Mode | O |  |  |  | F | ",
      "testbarcode | Blood Mode | WH |  |  |  | F | ",
      "testbarcode | Test Mode | CBC+DIFF |  |  |  | F | ",
      "testbarcode | Low Mode | L-WBC/PLT |  |  |  | F | ",
      "testbarcode | Ref Group | General |  |  |  | F | ",
      "testbarcode | Age |  |  |  |  | F | ",
      "testbarcode | Remarks |  |  |  |  | F | ",
      "testbarcode | Blood Type |  |  |  |  | F | ",
      "testbarcode | ESR |  |  |  |  | F | ",
      "testbarcode | Recheck flag | Y |  |  |  | F | ",
      "testbarcode | WBC Alarm |  |  |  |  | F | ",
      "testbarcode | RBC Alarm |  |  |  |  | F | ",
      "testbarcode | PLT Alarm |  |  |  |  | F | ",
      "testbarcode | Print_BMP | C |  |  |  | F | "
    ]
  },
  "biosystems-ba200-oul-r22.txt#1": {
    "dialect": "biosystems-ba",
    "results": [
      "SI APA | ACE | 21.9271355 | U/L |  | NONE | F | 2024-12-13T18:34:35.000Z",
      "SI APA | ALBUMIN | 43.3798141 | g/L |  | NONE | F | 2024-12-13T18:28:44.000Z",
      "SI APA | ALP-AMP | 35.8951797 | U/L |  | NONE | F | 2024-12-13T18:35:20.000Z",
      "SI APA | ALT-GPT | 10.5633411 | U/L |  | NONE | F | 2024-12-13T18:35:38.000Z",
      "SI APA | AMYLASE DIRECT | 106.056778 | U/L |  | NONE | F | 2024-12-13T19:11:46.000Z",
      "SI APA | AST-GOT | 21.2964096 | U/L |  | NONE | F | 2024-12-13T19:17:28.000Z",
      "SI APA | BILI DIRECT DPD | 0.0581453256 | mg/dL |  | NONE | F | 2024-12-13T18:32:38.000Z",
      "SI APA | BILI TOTAL DPD | 0.71246928 | mg/dL |  | NONE | F | 2024-12-13T18:35:11.000Z",
      "SI APA | CALCIUM ARSENAZO | 9.38908291 | mg/dL |  | NONE | F | 2024-12-13T18:32:29.000Z",
      "SI APA | CHOLESTEROL | 176.641998 | mg/dL |  | NONE | F | 2024-12-13T18:32:20.000Z",
      "SI APA | CHOLINESTERASE | 6649.88037 | U/L |  | NONE | F | 2024-12-13T18:34:35.000Z",
      "SI APA | CK | 22.9780865 | U/L |  | NONE | F | 2024-12-13T18:34:53.000Z",
      "SI APA | CREATININE | 0.635651588 | mg/dL |  | NONE | F | 2024-12-13T18:33:32.000Z",
      "SI APA | FERRITIN | 7.29504681 | \\Z03BC\\g/L |  | NONE | F | 2024-12-13T18:35:20.000Z",
      "SI APA | GAMMA-GT | 14.6088457 | U/L |  | NONE | F | 2024-12-13T18:34:35.000Z",
      "SI APA | GLUCOSE | 77.7815018 | mg/dL |  | NONE | F | 2024-12-13T18:35:11.000Z",
      "SI APA | HDL DIRECT TOOS | 79.2626419 | mg/dL |  | NONE | F | 2024-12-13T18:35:02.000Z",
      "SI APA | IRON FERROZINE | 6.75784826 | \\Z03BC\\g/dL |  | NONE | F | 2024-12-13T18:35:11.000Z",
      "SI APA | LDL DIRECT TOOS | 95.1346283 | mg/dL |  | NONE | F | 2024-12-13T18:35:11.000Z",
      "SI APA | MAGNESIUM | 1.69774115 | mg/dL |  | NONE | F | 2024-12-13T19:17:46.000Z",
      "SI APA | PROTEIN TOTALBIR | 70.7569351 | g/L |  | NONE | F | 2024-12-13T18:35:29.000Z",
      "SI APA | TRIGLYCERIDES | 33.0238266 | mg/dL |  | NONE | F | 2024-12-13T18:32:20.000Z",
      "SI APA | UREA-BUN-UV | 24.036623 | mg/dL |  | NONE | F | 2024-12-13T18:33:23.000Z",
      "SI APA | URIC ACID | 2.88172531 | mg/dL |  | NONE | F | 2024-12-13T18:32:29.000Z"
    ]
  },
  "biosystems-ba400-qbp-q11.txt#1": {
    "dialect": "biosystems-ba",
    "query": [
      "32971968"
    ]
  },
  "edan-i15-oru-r01.txt#1": {
    "dialect": "edan-i15",
    "results": [
      "20250902001 | pH | 7.400 |  | 7.350-7.450 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | pO2 | 90 | mmHg | 83-108 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | pCO2 | 40.0 | mmHg | 35.0-45.0 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | Na+ | 140 | mmol/L | 136-145 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | K+ | 4.0 | mmol/L | 3.4-4.5 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | Ca++ | 1.30 | mmol/L | 1.15-1.33 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | Cl- | 100 | mmol/L | 98-109 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | Glu | 5.0 | mmol/L | 3.9-6.1 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | Lac | 1.00 | mmol/L | 0.50-1.60 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | Hct | 40 | % | 36-53 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | tHb(est) | 13.7 | g/dL | 2.9-27.7 |  |  | 2025-09-02T17:02:39.000Z",
      "20250902001 | cH+ | 39.8 | nmol/L | 10.0-316.2 |  |  | 2025-09-02T17:02:39.000Z"
    ]
  },
  "mindray-bc6200-oru-r01.txt#1": {
    "dialect": "mindray-bc-hl7",
    "results": [
      "1770190e | Take Mode | A |  |  |  | F | ",
      "1770190e | Blood Mode | W |  |  |  | F | ",
      "1770190e | Test Mode | CBC+DIFF |  |  |  | F | ",
      "1770190e | Ref Group | General |  |  |  | F | ",
      "1770190e | Project Type | BL |  |  |  | F | ",
      "1770190e | Shelf No | 1 |  |  |  | F | ",
      "1770190e | Tube No | 1 |  |  |  | F | ",
      "1770190e | Analyzer | BC-6200_1 |  |  |  | F | ",
      "1770190e | SN | TW-02000906 |  |  |  | F | ",
      "1770190e | AuditResult | Review |  |  |  | F | ",
      "1770190e | WBC | 10.42 | 10*3/uL | 4.00-10.00 | H~N | F | ",
      "1770190e | NEU# | 5.49 | 10*3/uL | 2.00-7.00 | N | F | ",
      "1770190e | LYM# | 3.80 | 10*3/uL | 0.80-4.00 | N | F | ",
      "1770190e | MON# | 0.81 | 10*3/uL | 0.12-1.20 | N | F | ",
      "1770190e | EOS# | 0.29 | 10*3/uL | 0.02-0.50 | N | F | ",
      "1770190e | BAS# | 0.03 | 10*3/uL | 0.00-0.10 | N | F | ",
      "1770190e | IMG# | 0.03 | 10*3/uL | 0.00-999.99 | N | F | ",
      "1770190e | NEU% | 52.6 | % | 50.0-70.0 | N | F | ",
      "1770190e | LYM% | 36.5 | % | 20.0-40.0 | N | F | ",
      "1770190e | MON% | 7.8 | % | 3.0-12.0 | N | F | ",
      "1770190e | EOS% | 2.8 | % | 0.5-5.0 | N | F | ",
      "1770190e | BAS% | 0.3 | % | 0.0-1.0 | N | F | ",
      "1770190e | IMG% | 0.3 | % | 0.0-100.0 | N | F | ",
      "1770190e | RBC | 4.55 | 10*6/uL | 3.50-5.50 | N | F | ",
      "1770190e | HGB | 12.4 | g/dL | 11.0-16.0 | N | F | ",
      "1770190e | HCT | 37.5 | % | 37.0-54.0 | N | F | ",
      "1770190e | MCV | 82.4 | fL | 80.0-100.0 | N | F | ",
      "1770190e | MCH | 27.3 | pg | 27.0-34.0 | N | F | ",
      "1770190e | MCHC | 33.1 | g/dL | 32.0-36.0 | N | F | ",
      "1770190e | RDW-CV | 14.4 | % | 11.0-16.0 | N | F | ",
      "1770190e | RDW-SD | 44.2 | fL | 35.0-56.0 | N | F | ",
      "1770190e | PLT | 232 | 10*3/uL | 100-300 | N | F | ",
      "1770190e | MPV | 12.6 | fL | 6.5-12.0 | H~N | F | ",
      "1770190e | PDW | 16.5 |  | 15.0-17.0 | N | F | ",
      "1770190e | PCT | 0.293 | % | 0.108-0.282 | H~N | F | ",
      "1770190e | PLCC | 101 | 10*9/L | 30-90 | H~N | F | ",
      "1770190e | PLCR | 43.3 | % | 11.0-45.0 | N | F | ",
      "1770190e | NRBC# | 0.000 | 10*3/uL | 0.000-9999.999 | N | F | ",
      "1770190e | NRBC% | 0.00 | /100WBC | 0.00-9999.99 | N | F | ",
      "1770190e | PLT-I | 232 | 10*9/L |  | N | F | ",
      "1770190e | WBC-D | 10.22 | 10*9/L |  | N | F | ",
      "1770190e | TNC-D | 10.22 | 10*9/L |  | N | F | ",
      "1770190e | WBC-N | 10.42 | 10*9/L |  | N | F | ",
      "1770190e | TNC-N | 10.42 | 10*9/L |  | N | F | ",
      "1770190e | HFC# | 0.03 | 10*9/L |  | N | F | ",
      "1770190e | HFC% | 0.3 | % |  | N | F | ",
      "1770190e | IME% | 0.0 | % |  | N | F | ",
      "1770190e | IME# | 0.00 | 10*9/L |  | N | F | ",
      "1770190e | H-NR% | **** | % |  | N | F | ",
      "1770190e | L-NR% | **** | % |  | N | F | ",
      "1770190e | NLR | 1.44 |  |  | N | F | ",
      "1770190e | PLR | 61.12 |  |  | N | F | ",
      "1770190e | InR# | 0.00 | 10*9/L |  | N | F | ",
      "1770190e | InR‰ | 0.00 | ‰ |  | N | F | ",
      "1770190e | Micro# | 0.20 | 10*12/L |  | N | F | ",
      "1770190e | Micro% | 4.5 | % |  | N | F | ",
      "1770190e | Macro# | 0.08 | 10*12/L |  | N | F | ",
      "1770190e | Macro% | 1.7 | % |  | N | F | ",
      "1770190e | PDW-SD | 17.3 | fL |  | N | F | ",
      "1770190e | CORRECTED WBC | 10.42 | 10*3/uL | 4.00-10.00 | H~N | F | "
    ]
  },
  "mindray-cl2000i-ack-q03.txt#1": {
    "dialect": "mindray-cl-hl7",
    "other": "ACK^Q03 is not a message the mindray-cl-hl7 dialect reads (it reads ORU^R01, QRY^Q02)"
  },
  "mindray-cl2000i-oru-r01-qc.txt#1": {
    "dialect": "mindray-cl-hl7",
    "qc": [
      "QUAL2 | 7 | 0.137470 | nkat/L |  |  |  | 2013-07-29T14:15:52.000Z"
    ]
  },
  "mindray-cl2000i-oru-r01-result.txt#1": {
    "dialect": "mindray-cl-hl7",
    "results": [
      "12345678 | 2 | 100 | umol/L | - | N | F | 2012-04-05T17:42:45.000Z",
      "12345678 | 5 | 98.2 | umol/L | - | N | F | 2012-04-05T17:44:03.000Z",
      "12345678 | 6 | 26.4 | umol/L | - | N | F | "
    ]
  },
  "mindray-cl2000i-qry-q02.txt#1": {
    "dialect": "mindray-cl-hl7",
    "query": [
      "0019"
    ]
  },
  "roche-cobas6800-oul-r22-result.txt#1": {
    "dialect": "roche-cobas-6800",
    "results": [
      "BP23-04444 | HIV | ValueNotSet |  |  | BT | F | 2023-01-20T13:46:14.000Z",
      "BP23-04444 | 70241-5/1/1 | ValueNotSet |  |  | RR | F | 2023-01-20T13:46:14.000Z",
      "BP23-04444 | 70241-5/1/2 | < Titer min |  |  |  | F | 2023-01-20T13:46:14.000Z"
    ]
  },
  "roche-cobas6800-oul-r22-sarscov2.txt#1": {
    "dialect": "roche-cobas-6800",
    "results": [
      "TBY 7363 | TGT1 | ValueNotSet |  |  | NEG | F | 2023-05-16T15:14:42.000Z",
      "TBY 7363 | TGT2 | ValueNotSet |  |  | NEG | F | 2023-05-16T15:14:42.000Z",
      "TBY 7363 | SARS-COV-2/1/1 | ValueNotSet |  |  | NA | F | 2023-05-16T15:14:42.000Z",
      "TBY 7363 | SARS-COV-2/1/2 | NA |  |  | \" | F | 2023-05-16T15:14:42.000Z"
    ]
  },
  "roche-cobaspro-esu-inu-session.log.txt#1": {
    "dialect": "roche-cobas-pro",
    "other": "ESU^U01 reports the analyzer's state; it carries no results"
  },
  "roche-cobaspro-esu-inu-session.log.txt#3": {
    "dialect": "roche-cobas-pro",
    "other": "INU^U05 reports the analyzer's state; it carries no results"
  },
  "roche-cobaspro-oul-r22-e801.txt#1": {
    "dialect": "roche-cobas-pro",
    "results": [
      "140799 | 10020 | 112 | ng/dL |  | N | F | 2022-08-12T06:37:14.000Z"
    ]
  },
  "roche-cobaspro-oul-r22-hba1c-session.log.txt#1": {
    "dialect": "roche-cobas-pro",
    "results": [
      "577927 | 20662 | 5.97 | % |  | 112~102 | F | 2023-04-12T02:20:47.000Z"
    ]
  },
  "roche-cobaspro-oul-r22-hba1c-session.log.txt#2": {
    "dialect": "roche-cobas-pro",
    "results": [
      "577919 | 20662 | 5.60 | % |  | 112~102 | F | 2023-04-12T02:20:54.000Z"
    ]
  },
  "roche-cobaspro-oul-r22-manual.txt#1": {
    "dialect": "roche-cobas-pro",
    "results": [
      "022 | 20490 | 32.2 | mg/L |  | N | F | 2018-02-22T14:08:42.000Z"
    ]
  },
  "roche-cobaspro-qbp-q11-manual.txt#1": {
    "dialect": "roche-cobas-pro",
    "query": [
      "123"
    ]
  },
  "roche-cobaspro-qbp-q11.txt#1": {
    "dialect": "roche-cobas-pro",
    "query": [
      "498100"
    ]
  },
  "roche-cobaspure-oul-r22-qc.txt#1": {
    "dialect": "roche-cobas-pro",
    "qc": [
      "20391 | 20340 | 9.02 | mg/dL |  | N | F | 2025-07-01T10:24:46.000Z",
      "20391 | 20411 | 106 | mg/dL |  | N | F | 2025-07-01T10:24:54.000Z",
      "20391 | 20420 | 151 | U/L |  | N | F | 2025-07-01T10:25:02.000Z",
      "20391 | 20600 | 47.3 | U/L |  | N | F | 2025-07-01T10:25:10.000Z",
      "20391 | 20710 | 32.9 | mg/dL |  | N | F | 2025-07-01T10:25:18.000Z",
      "20391 | 20810 | 172 | U/L |  | N | F | 2025-07-01T10:25:26.000Z",
      "20391 | 20990 | 4.08 | mg/dL |  | N | F | 2025-07-01T10:24:38.000Z",
      "20391 | 21130 | 114 | mg/dL |  | N | F | 2025-07-01T10:25:34.000Z",
      "20391 | 21191 | 40.8 | mg/dL |  | N | F | 2025-07-01T10:25:42.000Z",
      "20391 | 29070 | 108.7 | mmol/L |  | N | F | 2025-07-01T10:14:41.000Z",
      "20391 | 29080 | 3.49 | mmol/L |  | N | F | 2025-07-01T10:14:41.000Z",
      "20391 | 29090 | 81.9 | mmol/L |  | N | F | 2025-07-01T10:14:41.000Z"
    ]
  },
  "roche-cobaspure-oul-r22-session.log.txt#1": {
    "dialect": "roche-cobas-pro",
    "results": [
      "130578 | 20130 | 29.9 | U/L |  | N | F | 2023-02-15T05:53:46.000Z",
      "130578 | 20220 | 20.9 | U/L |  | N | F | 2023-02-15T05:53:54.000Z",
      "130578 | 20411 | 214 | mg/dL |  | N | F | 2023-02-15T05:54:02.000Z",
      "130578 | 20630 | 84.8 | mg/dL |  | N | F | 2023-02-15T05:54:10.000Z",
      "130578 | 21130 | 117 | mg/dL |  | N | F | 2023-02-15T05:54:18.000Z"
    ]
  },
  "roche-cobaspure-oul-r22-session.log.txt#3": {
    "dialect": "roche-cobas-pro",
    "other": "ESU^U01 reports the analyzer's state; it carries no results"
  },
  "siemens-clinitek-status-oru-r01-qc.txt#1": {
    "dialect": "siemens-clinitek",
    "qc": [
      "184 | GLU | Negative |  |  |  | F | 2018-12-20T09:57:00.000Z",
      "184 | BIL | Negative |  |  |  | F | 2018-12-20T09:57:00.000Z",
      "184 | KET | Negative |  |  |  | F | 2018-12-20T09:57:00.000Z",
      "184 | SG | 1.015 |  |  |  | F | 2018-12-20T09:57:00.000Z",
      "184 | BLO | Negative |  |  |  | F | 2018-12-20T09:57:00.000Z",
      "184 | pH | 6.5 |  |  |  | F | 2018-12-20T09:57:00.000Z",
      "184 | PRO | Negative |  |  |  | F | 2018-12-20T09:57:00.000Z",
      "184 | URO | 3.2 | umol/L |  |  | F | 2018-12-20T09:57:00.000Z",
      "184 | NIT | Negative |  |  |  | F | 2018-12-20T09:57:00.000Z",
      "184 | LEU | Negative |  |  |  | F | 2018-12-20T09:57:00.000Z"
    ]
  },
  "siemens-clinitek-status-oru-r01.txt#1": {
    "dialect": "siemens-clinitek",
    "results": [
      "010820187 | GLU | Negative |  |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | BIL | Negative |  |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | KET | Negative |  |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | SG | <=1.005 |  |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | BLO | Negative |  |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | pH | 6.0 |  |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | PRO | Negative |  |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | URO | 3.2 | umol/L |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | NIT | Negative |  |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | LEU | Negative |  |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | COL | Yellow |  |  |  | F | 2018-12-05T21:37:00.000Z",
      "010820187 | CLA | Clear |  |  |  | F | 2018-12-05T21:37:00.000Z"
    ]
  },
  "urit-8030-oru-r01.txt#1": {
    "dialect": "urit-8030",
    "results": [
      "0000966134 | GLI | 111 | mg/dL | 65-99 | N | F | 2025-08-09"
    ],
    "problems": [
      "OBX 4 (GLI): completion time \"2025-08-09\" is not an HL7 date/time; kept as sent in completedAtRaw"
    ]
  },
  "urit-ut5160-oru-r01-manual.txt#1": {
    "dialect": "urit-ut5160",
    "results": [
      "BAR101010101 | WBC | 110.0 | 10^9/L | 40.0-100.0 | H | F | ",
      "BAR101010101 | LYM | 35.57 | % | 20.00-40.00 |  | F | ",
      "BAR101010101 | MON | 5.84 | % | 3.00-8.00 |  | F | ",
      "BAR101010101 | NEU | 57.37 | % | 50.00-70.00 |  | F | ",
      "BAR101010101 | EOS | 1.14 | % | 0.50-5.00 |  | F | ",
      "BAR101010101 | BASO | 0.08 | % | 0.00-1.00 |  | F | ",
      "BAR101010101 | LYM# | 284.5 | 10^9/L | 80.0-400.0 |  | F | ",
      "BAR101010101 | MON# | 46.7 | 10^9/L | 10.0-80.0 |  | F | ",
      "BAR101010101 | NEU# | 458.9 | 10^9/L | 200.0-700.0 |  | F | ",
      "BAR101010101 | EOS# | 9.1 | 10^9/L | 0.0-50.0 |  | F | ",
      "BAR101010101 | BASO# | 0.6 | 10^9/L | 0.0-10.0 |  | F | ",
      "BAR101010101 | RBC | 4.49 | 10^12/L | 3.50-5.50 |  | F | ",
      "BAR101010101 | HGB | 0 | g/L | 0-1079738368 | L | F | ",
      "BAR101010101 | HCT | 26.4 | % | 37.0-50.0 | L | F | ",
      "BAR101010101 | MCV | 59.0 | fL | 80.0-100.0 | L | F | ",
      "BAR101010101 | MCH | 24.0 | pg | 27.0-31.0 | L | F | ",
      "BAR101010101 | MCHC | 0 | g/L | 0-1081344000 | H | F | ",
      "BAR101010101 | RDW_CV | 16.1 | % | 11.5-14.5 | H | F | ",
      "BAR101010101 | RDW_SD | 45.0 | fL | 35.0-56.0 |  | F | ",
      "BAR101010101 | PLT | 0 | 10^9/L | 0-1079574528 | H | F | ",
      "BAR101010101 | MPV | 12.3 | fL | 7.0-11.0 | H | F | ",
      "BAR101010101 | PDW | 14.7 | fL | 15.0-17.0 | L | F | ",
      "BAR101010101 | PCT | 0.41 | % | 0.10-0.28 | H | F | ",
      "BAR101010101 | P_LCR | 1.37 | % | 0.50-1.80 |  | F | "
    ],
    "encapsulated": [
      "BAR101010101 | RBCHistogram | ED",
      "BAR101010101 | PLTHistogram | ED",
      "BAR101010101 | S0_S10DIFFScattergram | ED",
      "BAR101010101 | S90_S90DDIFFScattergram | ED"
    ]
  }
};

function actual(dialect: string, bytes: Buffer): Expected {
  const out: Expected = { dialect };
  for (const x of hl7LabEventsOf(bytes, findHl7Profile(dialect)!, "Europe/Berlin")) {
    if (x.type === "results") out.results = x.results.map(row);
    if (x.type === "qc") out.qc = x.results.map(row);
    if (x.type === "query") out.query = x.samples.map((s) => s.sampleNumber);
    if (x.type === "other") out.other = x.reason;
    if (x.type === "encapsulated") out.encapsulated = x.items.map((i) => `${i.SampleNumber} | ${i.instrumentCode} | ${i.valueType}`);
    if (x.type === "unassigned") out.unassigned = x.items.map((i) => i.reason);
    if ((x.type === "results" || x.type === "qc") && x.problems.length > 0) out.problems = x.problems;
  }
  return out;
}

test("every message an analyzer sent in the HL7 fixtures has its expected lab events", () => {
  const sent = allHl7Messages().filter((m) => m.from === "analyzer");
  assert.deepEqual(sent.map((m) => m.id).sort(), Object.keys(EXPECTED).sort());
  for (const m of sent) {
    const want = EXPECTED[m.id]!;
    assert.deepEqual(actual(want.dialect, m.bytes), want, m.id);
  }
});
