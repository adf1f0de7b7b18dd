import { check } from 'k6';
import { describe, expect } from 'https://jslib.k6.io/expect/0.0.5/index.js';

export const options = { iterations: 1, vus: 1 };

// What a user sees: every expectation is a check (listed by handleSummary
// below, with its group and passes/fails), and what describe returned and
// what an expectation threw are written down as passing checks named
// "note …".
let n = 0;
const note = (s) => { n += 1; check(null, { [`note ${String(n).padStart(3, '0')}: ${s}`]: () => true }); };
const t = (fn) => {
  try { fn(); note('ok'); } catch (e) { note(`${e.name}: ${e.message}`); }
};
const response = (body) => ({ request: { url: 'https://test.k6.local/api' }, status: 200, body, json() { return JSON.parse(this.body); } });
function named() {}
class Thing { constructor() { this.a = 1; } }

export default function () {
  note(`describe -> ${describe('chain passes', (t) => {
    t.expect(200).as('response status').toEqual(200)
      .and(response('[1,2,3]')).toHaveValidJson()
      .and(3).as('number of items').toBeGreaterThan(2)
      .and(5).toBeGreaterThanOrEqual(5)
      .and(1).toBeLessThan(2)
      .and(2).as('two').toBeLessThanOrEqual(2)
      .and(7).toBeBetween(1, 10)
      .and('yes').toBeTruthy()
      .and(4).toEqual(4);
  })}`);
  note(`describe -> ${describe('named equality fails', (t) => {
    t.expect(404).as('response status').toEqual(200).and(1).toEqual(1);
  })}`);
  note(`describe -> ${describe('plain equality fails', (t) => { t.expect(404).toEqual(200); })}`);
  note(`describe -> ${describe('string equality', (t) => { t.expect('abc').toEqual('abc').and(null).toEqual(undefined); })}`);
  note(`describe -> ${describe('greater fails', (t) => { t.expect(1).as('count').toBeGreaterThan(5); })}`);
  note(`describe -> ${describe('greater or equal fails', (t) => { t.expect(1).toBeGreaterThanOrEqual(5); })}`);
  note(`describe -> ${describe('less fails', (t) => { t.expect(9).toBeLessThan(5); })}`);
  note(`describe -> ${describe('less or equal fails', (t) => { t.expect(9).as('nine').toBeLessThanOrEqual(5); })}`);
  note(`describe -> ${describe('between fails', (t) => { t.expect(11).as('eleven').toBeBetween(1, 10); })}`);
  note(`describe -> ${describe('truthy fails', (t) => { t.expect(0).toBeTruthy(); })}`);
  note(`describe -> ${describe('truthy named fails', (t) => { t.expect('').as('empty string').toBeTruthy(); })}`);
  note(`describe -> ${describe('invalid json', (t) => { t.expect(response('nope')).toHaveValidJson(); })}`);
  note(`describe -> ${describe('not a response', (t) => { t.expect({ status: 200 }).toHaveValidJson(); })}`);
  note(`describe -> ${describe('exception', (t) => { t.expect(1).toEqual(1); throw new TypeError('kaput'); })}`);
  note(`describe -> ${describe('thrown string', () => { throw 'plain'; })}`);
  note(`describe -> ${describe('after a broken chain', (t) => {
    const f = t.expect(1).as('one');
    try { f.toEqual(2); } catch (e) { note(`${e.name} ${e.brokenChain} ${e.message}`); }
    note(`same object ${f.toEqual(1) === f} ${f.and(5) === f} ${f.toBeGreaterThan(0) === f}`);
  })}`);
  note(`describe -> ${describe('outer', () => {
    describe('inner', (t) => { t.expect(1).toEqual(1); });
  })}`);

  note(`describe -> ${describe('chai expect', () => {
    expect(200).to.equal(200);
    expect(200, 'status').to.equal(200);
    expect([1, 2]).to.have.lengthOf(2);
    expect({ a: 1, b: 2 }).to.have.property('b', 2);
    expect(200).to.equal(201);
    expect(1).to.equal(1);
  })}`);
  describe('chai messages', () => {
    t(() => expect(200, 'status').to.equal(201));
    t(() => expect({ a: 1 }).to.deep.equal({ a: 2 }));
    t(() => expect([1, 2]).to.have.lengthOf(3));
    t(() => expect([1, 2, 3]).to.have.length.above(3));
    t(() => expect('foobar').to.include('baz'));
    t(() => expect(5).to.be.within(6, 8));
    t(() => expect(5).to.not.be.above(3));
    t(() => expect(null).to.exist);
    t(() => expect({ a: 1, b: 2, c: 3 }).to.have.property('b', 3));
    t(() => expect([1, 2, 3]).to.have.members([1, 2]));
    t(() => expect(() => { throw new TypeError('bad'); }).to.throw(RangeError));
    t(() => expect(named).to.equal(1));
    t(() => expect(() => 1).to.equal(1));
    t(() => expect(new Date(86400000)).to.equal(1));
    t(() => expect(new Error('e1')).to.equal(1));
    t(() => expect(new Map([['a', 1]])).to.equal(1));
    t(() => expect(new Thing()).to.equal(1));
    t(() => expect(new Uint8Array([1, 2])).to.equal(1));
    t(() => expect(0).to.equal(1));
    t(() => expect(-0).to.equal(1));
    t(() => expect('a\nb\'c').to.equal(1));
    t(() => expect([1, [2, [3, [4, [5]]]]]).to.equal(1));
    t(() => expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]).to.equal(1));
    t(() => expect({ alpha: 1, beta: 2, gamma: 3, delta: 4, epsilon: 5, zeta: 6 }).to.equal(1));
    t(() => expect('x'.repeat(50)).to.equal(1));
    t(() => expect({ k: 'a fairly long string value', l: 'another fairly long string value' }).to.deep.equal({}));
    t(() => expect([{ k: 'a fairly long string value' }, { l: 'another fairly long string value' }]).to.have.lengthOf(1));
    t(() => expect(1).to.be.a('string'));
    t(() => expect.fail('forced'));
    t(() => { try { expect(1).to.equal(2); } catch (e) { note(JSON.stringify([e.actual, e.expected, e.showDiff, e.operator])); throw e; } });
  });
}

function lines(data) {
  const out = [];
  const walk = (g) => {
    for (const c of g.checks) out.push(`${c.path} | ${c.passes}/${c.fails}`);
    for (const s of g.groups) walk(s);
  };
  walk(data.root_group);
  return out;
}
// Where the file goes: $OUT, else the working folder.
const at = (f) => (__ENV.OUT ? `${__ENV.OUT}/` : '') + f;
export function handleSummary(data) {
  return { [at('got.txt')]: lines(data).join('\n') + '\n' };
}
