//! WebCrypto's public-key algorithms across the two tools: keys made,
//! signatures and ciphertexts written by one of loadlab and k6 v1.8.1
//! are read and checked by the other (RSASSA-PKCS1-v1_5, RSA-PSS,
//! RSA-OAEP, ECDSA, ECDH; SPKI, PKCS#8, JWK and raw keys), and loadlab
//! reads its own. deriveKey, wrapKey and unwrapKey, which k6 v1.8.1
//! lacks, are checked on loadlab alone.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::Command;

const INTEROP_JS: &str = r#"
import { check } from 'k6';
import encoding from 'k6/encoding';

export const options = { iterations: 1 };
const s = crypto.subtle;
const text = (str) => { const a = new Uint8Array(str.length); for (let i = 0; i < str.length; i++) a[i] = str.charCodeAt(i); return a; };
const b64 = (buf) => encoding.b64encode(buf, 'std');
const unb64 = (str) => encoding.b64decode(str, 'std');
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const RSA = (name) => ({ name, modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' });

async function make() {
  const out = {};
  for (const [name, sign] of [['RSASSA-PKCS1-v1_5', { name: 'RSASSA-PKCS1-v1_5' }], ['RSA-PSS', { name: 'RSA-PSS', saltLength: 32 }], ['ECDSA', { name: 'ECDSA', hash: 'SHA-384' }]]) {
    const alg = name === 'ECDSA' ? { name, namedCurve: 'P-384' } : RSA(name);
    const kp = await s.generateKey(alg, true, ['sign', 'verify']);
    out[name] = {
      spki: b64(await s.exportKey('spki', kp.publicKey)),
      jwk: await s.exportKey('jwk', kp.publicKey),
      pkcs8: b64(await s.exportKey('pkcs8', kp.privateKey)),
      sig: b64(await s.sign(sign, kp.privateKey, text('hello'))),
    };
  }
  const oaep = await s.generateKey(RSA('RSA-OAEP'), true, ['encrypt', 'decrypt']);
  out.oaep = {
    pkcs8: b64(await s.exportKey('pkcs8', oaep.privateKey)),
    jwk: await s.exportKey('jwk', oaep.privateKey),
    ct: b64(await s.encrypt({ name: 'RSA-OAEP', label: text('l') }, oaep.publicKey, text('secret'))),
  };
  const a = await s.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
  const b = await s.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
  out.ecdh = {
    a: b64(await s.exportKey('pkcs8', a.privateKey)),
    b: b64(await s.exportKey('raw', b.publicKey)),
    secret: hex(await s.deriveBits({ name: 'ECDH', public: b.publicKey }, a.privateKey, 256)),
  };
  console.log('MAKE ' + JSON.stringify(out));
}

async function verifyAll(made) {
  const got = {};
  for (const [name, sign] of [['RSASSA-PKCS1-v1_5', { name: 'RSASSA-PKCS1-v1_5' }], ['RSA-PSS', { name: 'RSA-PSS', saltLength: 32 }], ['ECDSA', { name: 'ECDSA', hash: 'SHA-384' }]]) {
    const alg = name === 'ECDSA' ? { name, namedCurve: 'P-384' } : { name, hash: 'SHA-256' };
    const m = made[name];
    const bySpki = await s.importKey('spki', unb64(m.spki), alg, true, ['verify']);
    got[`${name} by spki`] = await s.verify(sign, bySpki, unb64(m.sig), text('hello'));
    // k6 v1.8.1 cannot use an RSA public key it imported from a JWK
    // ("given CryptoKey is not a public RSA key, it's rsa.PublicKey").
    let byJwk = bySpki;
    if (__ENV.TOOL !== 'k6' || name === 'ECDSA') {
      byJwk = await s.importKey('jwk', m.jwk, alg, true, ['verify']);
      got[`${name} by jwk`] = await s.verify(sign, byJwk, unb64(m.sig), text('hello'));
    }
    got[`${name} not another text`] = !(await s.verify(sign, byJwk, unb64(m.sig), text('hellO')));
    const priv = await s.importKey('pkcs8', unb64(m.pkcs8), alg, true, ['sign']);
    const again = await s.sign(sign, priv, text('hello'));
    got[`${name} signs again`] = await s.verify(sign, bySpki, again, text('hello'));
    if (name === 'RSASSA-PKCS1-v1_5') got[`${name} the same signature`] = b64(again) === m.sig;
  }
  const alg = { name: 'RSA-OAEP', hash: 'SHA-256' };
  for (const [how, key] of [['pkcs8', await s.importKey('pkcs8', unb64(made.oaep.pkcs8), alg, false, ['decrypt'])],
    ['jwk', await s.importKey('jwk', made.oaep.jwk, alg, false, ['decrypt'])]]) {
    const pt = await s.decrypt({ name: 'RSA-OAEP', label: text('l') }, key, unb64(made.oaep.ct));
    got[`oaep decrypts by ${how}`] = String.fromCharCode(...new Uint8Array(pt)) === 'secret';
  }
  const ecdh = { name: 'ECDH', namedCurve: 'P-256' };
  const a = await s.importKey('pkcs8', unb64(made.ecdh.a), ecdh, false, ['deriveBits']);
  const b = await s.importKey('raw', unb64(made.ecdh.b), ecdh, true, []);
  got['ecdh the same secret'] = hex(await s.deriveBits({ name: 'ECDH', public: b }, a, 256)) === made.ecdh.secret;
  check(got, Object.fromEntries(Object.keys(got).map((k) => [k, (g) => g[k] === true])));
  console.log('CHECKED ' + Object.keys(got).length);
}

export default async function () {
  if (__ENV.MADE) await verifyAll(JSON.parse(__ENV.MADE));
  else await make();
}
"#;

const DERIVED_JS: &str = r#"
import { check } from 'k6';
export const options = { iterations: 1 };
const s = crypto.subtle;
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
export default async function () {
  const a = await s.generateKey({ name: 'ECDH', namedCurve: 'P-521' }, true, ['deriveKey', 'deriveBits']);
  const b = await s.generateKey({ name: 'ECDH', namedCurve: 'P-521' }, true, ['deriveKey']);
  const ka = await s.deriveKey({ name: 'ECDH', public: b.publicKey }, a.privateKey, { name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']);
  const kb = await s.deriveKey({ name: 'ECDH', public: a.publicKey }, b.privateKey, { name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']);
  const pw = await s.importKey('raw', new Uint8Array([112, 119]), 'PBKDF2', false, ['deriveKey']);
  const hk = await s.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt: new Uint8Array(8), iterations: 10 }, pw, { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
  const oaep = await s.generateKey({ name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['wrapKey', 'unwrapKey']);
  const wrapped = await s.wrapKey('jwk', ka, oaep.publicKey, { name: 'RSA-OAEP' });
  const back = await s.unwrapKey('jwk', wrapped, oaep.privateKey, { name: 'RSA-OAEP' }, { name: 'AES-GCM' }, true, ['decrypt']);
  const kek = await s.generateKey({ name: 'AES-CBC', length: 128 }, false, ['wrapKey', 'unwrapKey']);
  const iv = new Uint8Array(16);
  const w2 = await s.wrapKey('raw', hk, kek, { name: 'AES-CBC', iv });
  const hk2 = await s.unwrapKey('raw', w2, kek, { name: 'AES-CBC', iv }, { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
  const encryptOnly = await s.generateKey({ name: 'AES-CBC', length: 128 }, false, ['encrypt']);
  let refused = '';
  try { await s.wrapKey('raw', ka, encryptOnly, { name: 'AES-CBC', iv }); } catch (e) { refused = e.name; }
  const got = {
    'ECDH keys agree': hex(await s.exportKey('raw', ka)) === hex(await s.exportKey('raw', kb)),
    'a derived AES key': ka.algorithm.name === 'AES-GCM' && ka.algorithm.length === 256,
    'a derived HMAC key': hk.algorithm.hash.name === 'SHA-256' && hk.algorithm.length === 512,
    'unwrapped by RSA-OAEP': hex(await s.exportKey('raw', back)) === hex(await s.exportKey('raw', ka)),
    'unwrapped by AES-CBC': hex(await s.exportKey('raw', hk2)) === hex(await s.exportKey('raw', hk)),
    'an unwrapped key has its usages': back.usages.join() === 'decrypt',
    'a key that does not allow wrapKey': refused === 'InvalidAccessError',
  };
  check(got, Object.fromEntries(Object.keys(got).map((k) => [k, (g) => g[k] === true])));
}
"#;

fn tool_command(tool: &str, k6: Option<&Path>) -> Command {
    match tool {
        "k6" => {
            let mut c = loadlab_testkit::k6::run_command(k6.expect("k6"));
            c.arg("-q");
            c
        }
        _ => {
            let mut c = Command::new(env!("CARGO_BIN_EXE_loadlab"));
            c.args(["k6", "run", "-q"]);
            c
        }
    }
}

/// The JSON a `make` run logged (its console line, logfmt-quoted).
fn made(stderr: &str) -> String {
    let start = stderr.find("msg=\"MAKE ").expect("a MAKE line") + "msg=\"MAKE ".len();
    let end = start + stderr[start..].find("\" source=console").expect("its end");
    stderr[start..end].replace("\\\"", "\"")
}

#[test]
fn keys_signatures_and_ciphertexts_cross_between_loadlab_and_k6() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("interop.js");
    std::fs::write(&script, INTEROP_JS).unwrap();
    let k6 = loadlab_testkit::k6::k6_or_skip(
        "keys_signatures_and_ciphertexts_cross_between_loadlab_and_k6",
    );
    let mut pairs = vec![("loadlab", "loadlab")];
    if k6.is_some() {
        pairs.extend([("loadlab", "k6"), ("k6", "loadlab")]);
    }
    for (maker, checker) in pairs {
        let o = tool_command(maker, k6.as_deref())
            .arg(&script)
            .output_bounded()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{maker} make: {err}");
        let json = made(&err);
        let o = tool_command(checker, k6.as_deref())
            .args([
                "-e",
                &format!("MADE={json}"),
                "-e",
                &format!("TOOL={checker}"),
            ])
            .arg(&script)
            .output_bounded()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{maker} → {checker}: {err}");
        let n = if checker == "k6" { 14 } else { 16 };
        assert!(
            err.contains(&format!("CHECKED {n}")),
            "{maker} → {checker}: {err}"
        );
        let all = format!("{n} out of {n}");
        assert!(out.contains(&all), "{maker} → {checker}:\n{out}\n{err}");
    }
}

#[test]
fn derive_key_wrap_key_and_unwrap_key() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("derived.js");
    std::fs::write(&script, DERIVED_JS).unwrap();
    let o = tool_command("loadlab", None)
        .arg(&script)
        .output_bounded()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(out.contains("7 out of 7"), "{out}\n{err}");
}
