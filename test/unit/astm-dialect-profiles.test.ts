/**
 * The dialect profiles as data: each one consistent, found by id, frozen, and
 * the consistency check itself catching the mistakes it is there for.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GENERIC_LIS2A2, IMMUCOR, MINDRAY_CL, PROFILES, ROCHE_COBAS_E411, SYSMEX_XN, findProfile, getProfile, profileProblems, assertProfile, DialectProfileError, type DialectProfile } from '../../lib/protocols/astm/dialects';
import { resolveOptions } from '../../lib/protocols/astm/link/options';

describe('dialect profiles', () => {
  it('are all consistent', () => {
    for (const p of PROFILES) assert.deepEqual(profileProblems(p), [], p.id);
  });

  it('have unique ids and are found by id', () => {
    const ids = PROFILES.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const p of PROFILES) assert.equal(getProfile(p.id), p);
    assert.equal(findProfile('no-such-analyzer'), undefined);
    assert.throws(() => getProfile('no-such-analyzer'), (err: Error) => err instanceof RangeError && err.message.includes('generic-lis2a2') && err.message.includes('mindray-cl'));
  });

  it('start with the generic LIS2-A2 profile and cover at least five vendors besides it', () => {
    assert.equal(PROFILES[0], GENERIC_LIS2A2);
    const vendors = new Set(PROFILES.slice(1).map((p) => p.vendor));
    for (const v of ['Roche', 'Mindray', 'Sysmex', 'HORIBA', 'Stago', 'Abbott', 'Immucor', 'ERBA', 'Siemens', 'SNIBE', 'Ortho Clinical Diagnostics', 'Bio-Rad']) assert.ok(vendors.has(v), v);
  });

  it('give link options the link layer accepts', () => {
    for (const p of PROFILES) assert.doesNotThrow(() => resolveOptions(p.link), p.id);
  });

  it('are frozen, so one caller cannot change a profile for every other', () => {
    assert.ok(Object.isFrozen(ROCHE_COBAS_E411));
    assert.ok(Object.isFrozen(ROCHE_COBAS_E411.sampleId));
    assert.throws(() => {
      (ROCHE_COBAS_E411.sampleId as { component: number }).component = 1;
    }, TypeError);
  });

  it('answer queries only where an order layout exists, and accept unsolicited orders only where they can be written', () => {
    for (const p of PROFILES) {
      if (p.acceptsUnsolicitedOrders) assert.ok(p.order !== undefined && (p.order.order.echo ?? []).length === 0, p.id);
      if (p.order !== undefined) assert.ok(p.noOrder !== undefined, p.id);
    }
    // The bidirectional ones the brief asks for.
    for (const id of ['generic-lis2a2', 'roche-cobas-e411', 'roche-cobas-e411-elecsys', 'mindray-cl', 'immucor', 'sysmex-xn']) assert.ok(getProfile(id).order !== undefined, id);
  });

  it('give at least four vendors the whole round: read a query, answer it with a download or "no information"', () => {
    const vendors = new Set(PROFILES.filter((p) => p.vendor !== 'any' && p.query !== undefined && p.order !== undefined && p.noOrder !== undefined).map((p) => p.vendor));
    for (const v of ['Roche', 'Mindray', 'Immucor', 'Sysmex']) assert.ok(vendors.has(v), v);
  });

  it('take the cobas e 411 deadline from its manual and stay conservative elsewhere', () => {
    assert.equal(getProfile('roche-cobas-e411').queryDeadlineMs, 15_000);
    assert.equal(getProfile('roche-cobas-e411-elecsys').queryDeadlineMs, 15_000);
    for (const p of PROFILES) assert.ok(p.queryDeadlineMs > 0 && p.queryDeadlineMs <= 15_000, p.id);
  });
});

describe('profileProblems', () => {
  const broken = (patch: Partial<DialectProfile>): DialectProfile => ({ ...MINDRAY_CL, ...patch });

  it('names each mistake', () => {
    assert.match(profileProblems(broken({ id: 'Mindray CL' })).join(), /lower-case/);
    assert.match(profileProblems(broken({ sampleId: { ...MINDRAY_CL.sampleId, component: 0 } })).join(), /sampleId.component/);
    assert.match(profileProblems(broken({ testId: { code: { component: 4, split: { separator: '', part: 1 }, trim: true } } })).join(), /separator/);
    assert.match(profileProblems(broken({ queryDeadlineMs: 0 })).join(), /queryDeadlineMs/);
    assert.match(profileProblems(broken({ timeZone: 'Mars/Olympus' })).join(), /timeZone/);
    assert.match(profileProblems(broken({ noOrder: undefined })).join(), /noOrder/);
    assert.match(profileProblems({ ...GENERIC_LIS2A2, order: undefined }).join(), /acceptsUnsolicitedOrders needs an order layout/);
    assert.match(profileProblems({ ...ROCHE_COBAS_E411, acceptsUnsolicitedOrders: true }).join(), /echo the query/);
    const order = MINDRAY_CL.order;
    assert.ok(order !== undefined);
    assert.match(profileProblems(broken({ order: { ...order, order: { ...order.order, test: { codeComponent: 5, components: 4 } } } })).join(), /smaller than its codeComponent/);
    assert.match(profileProblems(broken({ order: { ...order, textDelimiters: { replaceWith: '|' } } })).join(), /replaceWith/);
    const patient = order.patient;
    assert.match(profileProblems(broken({ order: { ...order, patient: { ...patient, nameOrder: ['', 'first', 'last'] } } })).join(), /nameComponents or nameOrder, not both/);
    assert.match(profileProblems(broken({ order: { ...order, patient: { ...patient, nameComponents: undefined, nameOrder: ['first', ''] } } })).join(), /"last" once/);
    assert.match(profileProblems(broken({ order: { ...order, order: { ...order.order, sampleType: { field: 'specimenDescriptor', map: { Blood: [] } } } } })).join(), /"Blood"\] has no components/);
  });

  it('refuses an echo into the sample field that does not carry the queried sample', () => {
    const xn = SYSMEX_XN.order;
    assert.ok(xn !== undefined);
    const echo = (from: number, to: number): DialectProfile => ({ ...SYSMEX_XN, order: { ...xn, order: { ...xn.order, echo: [{ field: 'specimenId', from, to }] } } });
    assert.deepEqual(profileProblems(echo(1, 4)), []);
    assert.match(profileProblems(echo(1, 2)).join(), /must cover the query component that names the sample/);
    assert.match(profileProblems({ ...echo(1, 4), query: undefined }).join(), /must cover the query component/);
    // An echo elsewhere (Roche: O-4) is not held to it.
    assert.deepEqual(profileProblems(ROCHE_COBAS_E411), []);
    assert.deepEqual(profileProblems(IMMUCOR), []);
  });

  it('is thrown by assertProfile', () => {
    assert.throws(() => assertProfile(broken({ queryDeadlineMs: -1 })), DialectProfileError);
    assert.equal(assertProfile(MINDRAY_CL), MINDRAY_CL);
  });

  it('checks a profile that is not frozen every time: it may have changed since', () => {
    const p: DialectProfile = { ...MINDRAY_CL };
    assert.equal(assertProfile(p), p);
    (p as { queryDeadlineMs: number }).queryDeadlineMs = -1;
    assert.throws(() => assertProfile(p), DialectProfileError);
  });
});
