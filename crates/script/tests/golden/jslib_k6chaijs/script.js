import { check } from 'k6';
import chai, { describe, expect } from 'https://jslib.k6.io/k6chaijs/4.3.4.3/index.js';

export const options = { iterations: 1, vus: 1 };

// What a user sees: every assertion is a check (listed by handleSummary
// below, with its group and passes/fails), and what describe returned and
// what an assertion threw are written down as passing checks named "note …".
let n = 0;
const note = (s) => { n += 1; check(null, { [`note ${String(n).padStart(3, '0')}: ${s}`]: () => true }); };
const t = (fn) => {
  try { fn(); note('ok'); } catch (e) { note(`${e.name}: ${e.message}`); }
};
const res = (body) => ({ status: 200, body, json(sel) { return JSON.parse(this.body); } });

function Point(x, y) { this.x = x; this.y = y; }
class Thing { constructor() { this.a = 1; } hello() { return 'hi'; } }
function named() { return 1; }

export default function () {
  note(`describe -> ${describe('all pass', () => {
    expect(200, 'response status').to.equal(200);
    expect(10).to.be.within(8, 12);
    expect({ a: 1 }).to.deep.equal({ a: 1 });
    expect([1, 2, 3]).to.have.lengthOf(3);
    expect('foobar').to.include('foo');
    expect(true).to.be.ok;
  })}`);
  note(`describe -> ${describe('first failure stops', () => {
    expect(10).to.be.within(8, 12);
    expect(42).to.equal(44);
    expect(true).to.be.ok;
  })}`);
  note(`describe -> ${describe('unexpected exception', () => {
    expect(1).to.equal(1);
    throw new Error('boom');
  })}`);
  note(`describe -> ${describe('thrown string', () => { throw 'plain'; })}`);
  note(`describe -> ${describe('outer', () => {
    expect(1).to.be.a('number');
    describe('inner', () => { expect('x').to.be.a('number'); });
    expect([]).to.be.empty;
  })}`);

  describe('equality', () => {
    t(() => expect(200).to.equal(201));
    t(() => expect(200, 'status').to.equal(201));
    t(() => expect(200).to.not.equal(200));
    t(() => expect('abc').to.equals('abd'));
    t(() => expect(5).to.eq(5));
    t(() => expect({ a: 1 }).to.deep.equal({ a: 2 }));
    t(() => expect({ a: 1 }).to.equal({ a: 1 }));
    t(() => expect([1, 2]).to.eql([1, 2]));
    t(() => expect([1, 2]).to.eqls([1, 3]));
    t(() => expect({ a: [1, { b: 2 }] }).to.not.eql({ a: [1, { b: 2 }] }));
    t(() => expect(NaN).to.equal(NaN));
    t(() => expect(-0).to.equal(0));
    t(() => expect(null).to.equal(undefined));
    t(() => expect(new Point(1, 2)).to.deep.equal({ x: 1, y: 2 }));
    t(() => expect(new Map([[1, 'a']])).to.deep.equal(new Map([[1, 'b']])));
    t(() => expect(new Set([1, 2])).to.deep.equal(new Set([2, 1])));
  });

  describe('types and values', () => {
    t(() => expect('x').to.be.a('string'));
    t(() => expect('x').to.be.an('array'));
    t(() => expect([]).to.be.an('array').that.is.empty);
    t(() => expect(null).to.be.a('null'));
    t(() => expect(/x/).to.be.a('regexp'));
    t(() => expect(new Date(0)).to.be.a('date'));
    t(() => expect(1).to.be.a('string', 'custom msg'));
    t(() => expect(0).to.be.ok);
    t(() => expect('').to.not.be.ok);
    t(() => expect(1).to.be.true);
    t(() => expect(false).to.be.false);
    t(() => expect(0).to.be.null);
    t(() => expect(undefined).to.be.undefined);
    t(() => expect(null).to.not.be.undefined);
    t(() => expect(1).to.be.NaN);
    t(() => expect(NaN).to.not.be.NaN);
    t(() => expect(null).to.exist);
    t(() => expect(0).to.exist);
    t(() => expect(Infinity).to.be.finite);
    t(() => expect('1').to.be.finite);
    t(() => expect([1]).to.be.empty);
    t(() => expect('').to.not.be.empty);
    t(() => expect({}).to.be.empty);
    t(() => expect(new Map([[1, 2]])).to.be.empty);
    t(() => expect(42).to.be.empty);
  });

  describe('numbers', () => {
    t(() => expect(5).to.be.above(10));
    t(() => expect(5).to.be.gt(4));
    t(() => expect(5).to.be.greaterThan(5));
    t(() => expect(5).to.be.at.least(6));
    t(() => expect(5).to.be.gte(5));
    t(() => expect(5).to.be.below(3));
    t(() => expect(5).to.be.lt(3));
    t(() => expect(5).to.be.lessThan(6));
    t(() => expect(5).to.be.at.most(4));
    t(() => expect(5).to.be.lte(5));
    t(() => expect(5).to.not.be.above(3));
    t(() => expect(5).to.be.within(6, 8));
    t(() => expect(5).to.not.be.within(1, 8));
    t(() => expect(1.5).to.be.closeTo(1, 0.4));
    t(() => expect(1.5).to.be.approximately(1.4, 0.2));
    t(() => expect('5').to.be.above(3));
    t(() => expect(5).to.be.above('3'));
    t(() => expect(new Date(0)).to.be.above(new Date(1000)));
    t(() => expect(5).to.be.closeTo(5));
  });

  describe('lengths', () => {
    t(() => expect([1, 2]).to.have.a.lengthOf(3));
    t(() => expect([1, 2]).to.have.lengthOf(2));
    t(() => expect('abcd').to.have.length(3));
    t(() => expect([1, 2]).to.not.have.lengthOf(2));
    t(() => expect([1, 2, 3]).to.have.length.above(3));
    t(() => expect([1, 2, 3]).to.have.lengthOf.at.least(2));
    t(() => expect('abc').to.have.length.below(2));
    t(() => expect('abc').to.have.lengthOf.at.most(2));
    t(() => expect([1, 2, 3]).to.have.length.within(4, 6));
    t(() => expect(new Set([1, 2])).to.have.lengthOf(3));
    t(() => expect(new Map([[1, 2]])).to.have.lengthOf(1));
    t(() => expect(5).to.have.lengthOf(1));
  });

  describe('include and members', () => {
    t(() => expect([1, 2, 3]).to.include(4));
    t(() => expect('foobar').to.contain('baz'));
    t(() => expect('foobar').to.not.include('foo'));
    t(() => expect({ a: 1, b: 2 }).to.include({ a: 1 }));
    t(() => expect({ a: 1, b: 2 }).to.include({ a: 2, b: 2 }));
    t(() => expect([{ a: 1 }]).to.include({ a: 1 }));
    t(() => expect([{ a: 1 }]).to.deep.include({ a: 1 }));
    t(() => expect(new Set([1])).to.include(2));
    t(() => expect(new Map([['k', 'v']])).to.include('v'));
    t(() => expect([1, 2]).to.includes(2));
    t(() => expect([1, 2]).to.contains(3));
    t(() => expect({ a: { b: 1 } }).to.nested.include({ 'a.b': 1 }));
    t(() => expect({ a: { b: 1 } }).to.nested.include({ 'a.b': 2 }));
    t(() => expect(5).to.include(5));
    t(() => expect([1, 2, 3]).to.have.members([3, 2, 1]));
    t(() => expect([1, 2, 3]).to.have.members([1, 2]));
    t(() => expect([1, 2, 3]).to.include.members([1, 4]));
    t(() => expect([1, 2, 3]).to.have.ordered.members([1, 3, 2]));
    t(() => expect([1, 2, 3]).to.include.ordered.members([1, 2]));
    t(() => expect([{ a: 1 }]).to.have.deep.members([{ a: 1 }]));
    t(() => expect([{ a: 1 }]).to.have.members([{ a: 1 }]));
    t(() => expect([1, 2]).to.have.same.members([1, 2]).but.not.have.members([2]));
    t(() => expect(2).to.be.oneOf([1, 2, 3]));
    t(() => expect(4).to.be.oneOf([1, 2, 3]));
    t(() => expect({ a: 1 }).to.be.deep.oneOf([{ a: 1 }]));
    t(() => expect('ab').to.be.oneOf(['abc'], 'short'));
  });

  describe('properties and keys', () => {
    t(() => expect({ a: 1 }).to.have.property('a'));
    t(() => expect({ a: 1 }).to.have.property('b'));
    t(() => expect({ a: 1, b: 2, c: 3 }).to.have.property('b', 2));
    t(() => expect({ a: 1, b: 2, c: 3 }).to.have.property('b', 3));
    t(() => expect({ a: 1 }).to.not.have.property('a', 1));
    t(() => expect({ a: { b: [1, 2] } }).to.have.nested.property('a.b[1]', 2));
    t(() => expect({ a: { b: 1 } }).to.have.deep.property('a', { b: 1 }));
    t(() => expect({ a: { b: 1 } }).to.have.property('a').that.deep.equals({ b: 2 }));
    t(() => expect({ a: 1 }).to.have.own.property('a'));
    t(() => expect({ a: 1 }).to.have.ownProperty('toString'));
    t(() => expect({ a: 1 }).to.haveOwnProperty('a'));
    t(() => expect({ a: 1 }).to.have.ownPropertyDescriptor('a'));
    t(() => expect({ a: 1, b: 2 }).to.have.keys('a', 'b'));
    t(() => expect({ a: 1, b: 2 }).to.have.all.keys(['a']));
    t(() => expect({ a: 1, b: 2 }).to.have.any.keys('a', 'z'));
    t(() => expect({ a: 1, b: 2 }).to.not.have.any.keys('x', 'y'));
    t(() => expect({ a: 1, b: 2 }).to.contain.keys('c'));
    t(() => expect({ a: 1, b: 2 }).to.have.keys({ a: 0, c: 0 }));
    t(() => expect(new Map([['a', 1]])).to.have.key('a'));
    t(() => expect(new Set(['a'])).to.have.keys('b'));
  });

  describe('strings, functions and objects', () => {
    t(() => expect('foobar').to.match(/^foo/));
    t(() => expect('foobar').to.matches(/^bar/));
    t(() => expect('foobar').to.not.match(/o+/));
    t(() => expect('foobar').to.have.string('oba'));
    t(() => expect('foobar').to.have.string('xyz'));
    t(() => expect(new Thing()).to.be.an.instanceof(Thing));
    t(() => expect([]).to.be.instanceOf(Thing));
    t(() => expect(() => { throw new TypeError('bad thing'); }).to.throw(TypeError, 'bad'));
    t(() => expect(() => { throw new TypeError('bad thing'); }).to.throw(RangeError));
    t(() => expect(() => {}).to.throw());
    t(() => expect(() => { throw new Error('x'); }).to.not.throw());
    t(() => expect(() => { throw new Error('abc'); }).to.throw(/b/));
    t(() => expect(() => { throw new Error('abc'); }).to.throw('zzz'));
    t(() => expect(named).to.throw());
    t(() => expect(new Thing()).to.respondTo('hello'));
    t(() => expect(Thing).to.respondTo('hello'));
    t(() => expect(Thing).itself.to.respondTo('hello'));
    t(() => expect({ a: 1 }).to.respondTo('a'));
    t(() => expect(2).to.satisfy((x) => x > 1));
    t(() => expect(2).to.satisfy(function isBig(x) { return x > 5; }));
    t(() => expect({}).to.be.extensible);
    t(() => expect(Object.seal({})).to.be.sealed);
    t(() => expect({}).to.be.frozen);
    t(() => expect(Object.freeze({ a: 1 })).to.not.be.frozen);
    t(() => expect(1).to.be.frozen);
    t(() => expect.fail('forced'));
    t(() => expect.fail(1, 2, 'numbers differ'));
    t(() => expect.fail(1, 2));
    t(() => expect(1).to.have.been.that.which.is.and.has.have.with.at.of.same.does.still.also.equal(1));
  });

  describe('inspection', () => {
    t(() => expect('a\nb\'c').to.equal('x'));
    t(() => expect([1, [2, [3, [4, [5]]]]]).to.deep.equal([1]));
    t(() => expect({ a: { b: { c: { d: 1 } } } }).to.deep.equal({}));
    t(() => expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]).to.have.lengthOf(3));
    t(() => expect({ alpha: 1, beta: 2, gamma: 3, delta: 4, epsilon: 5, zeta: 6 }).to.be.empty);
    t(() => expect('x'.repeat(120)).to.equal('y'));
    t(() => expect(named).to.equal(1));
    t(() => expect(() => 1).to.equal(1));
    t(() => expect(Symbol('s')).to.equal(1));
    t(() => expect(10n).to.equal(1));
    t(() => expect(new Error('e1')).to.equal(1));
    t(() => expect(new Date(86400000)).to.equal(1));
    t(() => expect(/re/gi).to.equal(1));
    t(() => expect(new Map([['a', 1], ['b', { c: 2 }]])).to.equal(1));
    t(() => expect(new Set([1, 'two'])).to.equal(1));
    t(() => expect(new Thing()).to.equal(1));
    t(() => expect(new Uint8Array([1, 2])).to.equal(1));
    t(() => expect([undefined, null, true, -0, Infinity]).to.equal(1));
    t(() => expect({ 'key with space': 1, k2: 'v' }).to.equal(1));
    t(() => expect(Object.create(null)).to.equal(1));
    t(() => expect([1, 2, 3]).to.equal([1, 2, 3]));
  });


  describe('more', () => {
    t(() => expect(1).to.be.tru);
    t(() => expect(1).to.equal.foo);
    t(() => expect(1).to.be.xyzzyplugh);
    t(() => { let x = { v: 1 }; expect(() => { x.v += 2; }).to.increase(x, 'v').by(2); });
    t(() => { let v = 5; expect(() => { v -= 1; }).to.decrease(() => v); });
    t(() => { const o = { v: 1 }; expect(() => {}).to.change(o, 'v'); });
    t(() => expect(new Map([['a', 1], ['b', 2]])).to.have.all.keys('a', 'b'));
    t(() => expect(new Map([['a', 1], ['b', 2]])).to.deep.equal(new Map([['a', 1], ['b', 3]])));
    t(() => expect({ a: 1 }).to.have.keys());
    t(() => expect({ a: 1 }).to.have.keys(['a'], 'b'));
    t(() => expect(() => { throw new Error('x'); }).to.not.throw(Error, 'x'));
    t(() => expect(() => { throw 'str'; }).to.throw('str'));
    t(() => { const e = new RangeError('r'); expect(() => { throw e; }).to.throw(e); });
    t(() => expect(() => { throw new TypeError('t'); }).to.throw(new RangeError('r')));
    t(() => expect(function () { return arguments; }(1, 2)).to.be.arguments);
    t(() => expect([1]).to.be.arguments);
    t(() => expect(new Set([{ a: 1 }])).to.deep.include({ a: 1 }));
    t(() => expect({ a: { b: 1 } }).to.have.nested.own.property('a.b'));
    t(() => expect({ a: 1 }).to.have.ownPropertyDescriptor('a', { value: 2, writable: true, enumerable: true, configurable: true }));
    t(() => expect({ a: 1, b: 2 }).to.not.include({ a: 1, b: 3 }));
    t(() => expect({ a: 1, b: 2 }).to.not.include({ a: 3, b: 3 }));
    t(() => expect(null).to.have.property('a'));
    t(() => expect(new Date(0)).to.be.within(new Date(1), new Date(2)));
    t(() => expect([1, 2]).to.contain.oneOf([3, 2]));
    t(() => expect(1).to.be.instanceOf(1));
    t(() => expect(named).to.be.empty);
    t(() => expect(new WeakMap()).to.be.empty);
    t(() => expect([3, 1, 2]).to.have.deep.ordered.members([3, 1, 2]));
    t(() => expect('abc', 'label').to.have.lengthOf(2, 'override'));
    t(() => expect(true).to.not.be.true);
    t(() => expect(new Promise(() => {})).to.equal(1));
    t(() => expect({ [Symbol('k')]: 1, a: undefined }).to.equal(1));
    t(() => expect([{ name: 'first entry with text' }, { name: 'second entry' }]).to.deep.equal([]));
    t(() => expect({ nested: { deeper: { list: [1, 2, 3] } }, other: 'value' }).to.be.null);
    const should = chai.should();
    t(() => (5).should.equal(5));
    t(() => 'abc'.should.have.lengthOf(2));
    t(() => should.exist(null));
    t(() => { chai.assert(false, 'plain assert'); });
    t(() => { chai.assert(true, 'plain assert'); });
    delete Object.prototype.should;
  });
  describe('config and helpers', () => {
    t(() => expect(res('{"a":1}')).to.have.validJsonBody());
    t(() => expect(res('not json')).to.have.validJsonBody());
    t(() => expect(res('{}')).to.not.have.validJsonBody());
    t(() => expect('secret-token').anonymize().to.equal('other'));
    t(() => expect('secret-token', 'token').anonymize().to.equal('other'));
    t(() => expect('secret').anonymize((m) => m.replace('#{this}', 'XX')).to.have.lengthOf(2));
    chai.config.aggregateChecks = false;
    t(() => expect(200).to.equal(201));
    t(() => expect(200, 'status').to.equal(200));
    t(() => expect([1, 2]).to.have.lengthOf(2));
    t(() => expect({ a: 1, b: 2, c: 3 }).to.have.property('b', 2));
    chai.config.truncateVariableThreshold = 10;
    t(() => expect('abcdefghijklmnop').to.equal('abcdefghijklmnopq'));
    chai.config.truncateVariableThreshold = 100;
    chai.config.aggregateChecks = true;
    t(() => expect(3).to.equal(4));
    note(`config ${JSON.stringify([chai.config.truncateVariableThreshold, chai.config.truncateMsgThreshold, chai.config.logFailures, chai.config.exitOnError, chai.config.includeStack, chai.config.showDiff, chai.config.truncateThreshold])}`);
    note(`types ${typeof chai.Assertion} ${typeof chai.AssertionError} ${typeof chai.util} ${typeof chai.use} ${typeof chai.assert} ${typeof chai.should} ${typeof expect.fail}`);
    chai.Assertion.addMethod('teapot', function () {
      this.assert(chai.util.flag(this, 'object') === 418, 'expected #{this} to be a teapot', 'expected #{this} not to be a teapot');
    });
    t(() => expect(418).to.be.teapot());
    t(() => expect(200).to.be.teapot());
    chai.use((c, u) => { c.Assertion.addProperty('even', function () { this.assert(u.flag(this, 'object') % 2 === 0, 'expected #{this} to be even', 'expected #{this} to be odd'); }); });
    t(() => expect(3).to.be.even);
    t(() => expect(3).to.not.be.even);
    t(() => { try { expect(1).to.equal(2); } catch (e) { note(`${e instanceof chai.AssertionError} ${JSON.stringify([e.actual, e.expected, e.showDiff, e.operator])}`); throw e; } });
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
