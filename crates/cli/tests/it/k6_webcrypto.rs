//! The WebCrypto global (`crypto`): what loadlab has gives k6 v1.8.1's
//! answers (side by side where k6 is installed); what it lacks is refused
//! before the test starts, naming it.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::{Command, Output};

fn run(cmd: &mut Command, script: &Path) -> (i32, String, String) {
    let o: Output = cmd.arg(script).output_bounded().expect("run");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn loadlab() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_loadlab"));
    c.args(["k6", "run", "-q"]);
    c
}

/// Runs `js` under loadlab and, where k6 is installed, under k6 too: both
/// exit alike and pass all `checks` of them.
fn answers_as_k6(test: &str, file: &str, js: &str, checks: usize) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(file);
    std::fs::write(&p, js).unwrap();
    let all = format!("{checks} out of {checks}");
    let (code, out, err) = run(&mut loadlab(), &p);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains(&all), "{out}");
    if let Some(k6) = loadlab_testkit::k6::k6_or_skip(test) {
        let mut c = loadlab_testkit::k6::run_command(&k6);
        c.arg("-q");
        let (kcode, kout, kerr) = run(&mut c, &p);
        assert_eq!(kcode, code, "k6:\n{kout}\n{kerr}");
        assert!(kout.contains(&all), "{kout}");
    }
}

/// Known answers (SHA digests, RFC 4231-style HMAC of the quick brown
/// fox) and the shapes of random values; every check passed in k6 v1.8.1.
const WEBCRYPTO_JS: &str = r#"
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const enc = (s) => new Uint8Array(Array.from(s, (c) => c.charCodeAt(0)));
export default async function () {
  const d256 = hex(await crypto.subtle.digest('SHA-256', enc('hello')));
  const d1 = hex(await crypto.subtle.digest({ name: 'SHA-1' }, enc('hello')));
  const d512 = hex(await crypto.subtle.digest('SHA-512', enc('')));
  const key = await crypto.subtle.importKey('raw', enc('key'), { name: 'HMAC', hash: { name: 'SHA-256' } }, true, ['sign', 'verify']);
  const sig = await crypto.subtle.sign('HMAC', key, enc('The quick brown fox jumps over the lazy dog'));
  const ok = await crypto.subtle.verify('HMAC', key, sig, enc('The quick brown fox jumps over the lazy dog'));
  const bad = await crypto.subtle.verify({ name: 'HMAC' }, key, sig, enc('other'));
  const raw = hex(await crypto.subtle.exportKey('raw', key));
  const a = crypto.getRandomValues(new Uint32Array(8));
  const u = crypto.randomUUID();
  let quota = '';
  try { crypto.getRandomValues(new Uint8Array(65537)); } catch (e) { quota = e.message.split(':')[0]; }
  check(null, {
    'sha256': () => d256 === '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
    'sha1': () => d1 === 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d',
    'sha512 empty': () => d512.startsWith('cf83e1357eefb8bdf1542850d66d8007'),
    'hmac sign': () => hex(sig) === 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
    'hmac verify': () => ok === true && bad === false,
    'key': () => key.type === 'secret' && key.algorithm.name === 'HMAC' && key.algorithm.hash.name === 'SHA-256' && raw === '6b6579',
    'getRandomValues': () => a.length === 8 && a.some((x) => x !== 0),
    'randomUUID': () => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(u),
    'quota': () => quota === 'QuotaExceededError',
  });
}
"#;

#[test]
fn webcrypto_digest_hmac_and_random_values_answer_as_k6() {
    answers_as_k6(
        "webcrypto_digest_hmac_and_random_values_answer_as_k6",
        "webcrypto.js",
        WEBCRYPTO_JS,
        9,
    );
}

/// PBKDF2's `deriveBits`: RFC 6070 and RFC 7914 known answers, and the
/// OperationError for a length not a multiple of 8; every check passed in
/// k6 v1.8.1.
const PBKDF2_JS: &str = r#"
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const enc = (s) => new Uint8Array(Array.from(s, (c) => c.charCodeAt(0)));
export default async function () {
  const key = await crypto.subtle.importKey('raw', enc('password'), 'PBKDF2', false, ['deriveBits']);
  const sha1 = hex(await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-1', salt: enc('salt'), iterations: 4096 }, key, 160));
  const pw = await crypto.subtle.importKey('raw', enc('passwd'), { name: 'PBKDF2' }, false, ['deriveBits']);
  const sha256 = hex(await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: { name: 'SHA-256' }, salt: enc('salt'), iterations: 1 }, pw, 512));
  let odd = '';
  try { await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: enc('salt'), iterations: 1 }, key, 12); } catch (e) { odd = e.name; }
  check(null, {
    'pbkdf2 sha1': () => sha1 === '4b007901b765489abead49d926f721d065a429c1',
    'pbkdf2 sha256': () => sha256.startsWith('55ac046e56e3089fec1691c22544b605') && sha256.endsWith('d3a19783'),
    'key': () => key.type === 'secret' && key.algorithm.name === 'PBKDF2' && key.extractable === false,
    'length not a multiple of 8': () => odd === 'OperationError',
  });
}
"#;

#[test]
fn pbkdf2_derive_bits_answers_as_k6() {
    answers_as_k6(
        "pbkdf2_derive_bits_answers_as_k6",
        "pbkdf2.js",
        PBKDF2_JS,
        4,
    );
}

/// AES-GCM (NIST SP 800-38D test case 4, with additional data, and a
/// tampered ciphertext refused), AES-CBC and AES-CTR (NIST SP 800-38A),
/// generated AES and HMAC keys, and the errors for a usage the key lacks
/// and a key of the wrong length; every check passed in k6 v1.8.1.
const AES_JS: &str = r#"
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const unhex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)));
const enc = (s) => new Uint8Array(Array.from(s, (c) => c.charCodeAt(0)));
export default async function () {
  // NIST SP 800-38D test case 4 (AES-128-GCM with additional data).
  const gk = await crypto.subtle.importKey('raw', unhex('feffe9928665731c6d6a8f9467308308'), { name: 'AES-GCM' }, true, ['encrypt', 'decrypt']);
  const pt = unhex('d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39');
  const gp = { name: 'AES-GCM', iv: unhex('cafebabefacedbaddecaf888'), additionalData: unhex('feedfacedeadbeeffeedfacedeadbeefabaddad2') };
  const gct = await crypto.subtle.encrypt(gp, gk, pt);
  const gpt = await crypto.subtle.decrypt(gp, gk, gct);
  const tampered = new Uint8Array(gct.slice(0)); tampered[0] ^= 1;
  let gbad = '';
  try { await crypto.subtle.decrypt(gp, gk, tampered); } catch (e) { gbad = e.name; }
  // NIST SP 800-38A F.2.1 and F.5.1, first block.
  const k128 = unhex('2b7e151628aed2a6abf7158809cf4f3c');
  const block = unhex('6bc1bee22e409f96e93d7e117393172a');
  const ck = await crypto.subtle.importKey('raw', k128, 'AES-CBC', false, ['encrypt', 'decrypt']);
  const cct = await crypto.subtle.encrypt({ name: 'AES-CBC', iv: unhex('000102030405060708090a0b0c0d0e0f') }, ck, block);
  const tk = await crypto.subtle.importKey('raw', k128, { name: 'AES-CTR' }, false, ['encrypt', 'decrypt']);
  const tct = await crypto.subtle.encrypt({ name: 'AES-CTR', counter: unhex('f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff'), length: 64 }, tk, block);
  // A generated key: a round trip, and its raw export.
  const nk = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const msg = enc('hello, loadlab');
  const back = await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, nk, await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, nk, msg));
  const nraw = await crypto.subtle.exportKey('raw', nk);
  let usage = '';
  const onlyEnc = await crypto.subtle.importKey('raw', k128, 'AES-CBC', false, ['encrypt']);
  try { await crypto.subtle.decrypt({ name: 'AES-CBC', iv: new Uint8Array(16) }, onlyEnc, cct); } catch (e) { usage = e.name; }
  let badlen = '';
  try { await crypto.subtle.importKey('raw', new Uint8Array(20), 'AES-GCM', false, ['encrypt']); } catch (e) { badlen = e.name; }
  const hk = await crypto.subtle.generateKey({ name: 'HMAC', hash: { name: 'SHA-256' } }, true, ['sign', 'verify']);
  const hsig = await crypto.subtle.sign('HMAC', hk, msg);
  const hok = await crypto.subtle.verify('HMAC', hk, hsig, msg);
  check(null, {
    'gcm ciphertext and tag': () => hex(gct) === '42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e0915bc94fbc3221a5db94fae95ae7121a47',
    'gcm decrypts': () => hex(gpt) === hex(pt),
    'gcm tampered': () => gbad === 'OperationError',
    'cbc': () => hex(cct).startsWith('7649abac8119b246cee98e9b12e9197d') && cct.byteLength === 32,
    'ctr': () => hex(tct) === '874d6191b620e3261bef6864990db6ce',
    'generated round trip': () => hex(back) === hex(msg) && nraw.byteLength === 32,
    'generated key': () => nk.type === 'secret' && nk.algorithm.name === 'AES-GCM' && nk.algorithm.length === 256 && nk.extractable === true,
    'usage refused': () => usage === 'InvalidAccessError',
    'bad key length': () => badlen !== '',
    'hmac generated': () => hok === true && hk.algorithm.name === 'HMAC' && hk.algorithm.length === 512,
  });
}
"#;

#[test]
fn aes_encrypt_decrypt_and_generated_keys_answer_as_k6() {
    answers_as_k6(
        "aes_encrypt_decrypt_and_generated_keys_answer_as_k6",
        "aes.js",
        AES_JS,
        10,
    );
}

#[test]
fn an_unsupported_subtle_method_is_named_before_the_test() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("enc.js");
    std::fs::write(
        &p,
        "export default async function () {\n  await crypto.subtle.encapsulateKey({ name: 'ML-KEM-768' }, null, null, true, []);\n}\n",
    )
    .unwrap();
    let (code, out, err) = run(&mut loadlab(), &p);
    assert_eq!(code, 107, "{out}\n{err}");
    assert!(
        err.contains("enc.js:2:9: crypto.subtle.encapsulateKey (WebCrypto) is not supported"),
        "{err}"
    );
    assert!(!out.contains("TOTAL RESULTS"), "no load ran: {out}");
}
