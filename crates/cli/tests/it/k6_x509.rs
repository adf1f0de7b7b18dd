//! `k6/crypto/x509` side by side with k6 v1.8.1: six certificates (RSA
//! with every subject field and alt names of each kind, ECDSA P-384,
//! Ed25519, DSA, RSA-PSS with and without the parameters Go names), and
//! input that is not a certificate. Every call's answer, printed as JSON
//! (BigInts as hexadecimal), is k6's line for line.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::{Command, Output};

const CERTS: [&str; 6] = ["rsa", "ec", "ed", "pss", "pss2", "dsa"];

const SCRIPT: &str = r#"
import x509 from 'k6/crypto/x509';
import { getSubject } from 'k6/crypto/x509';
const names = ['rsa', 'ec', 'ed', 'pss', 'pss2', 'dsa'];
const pems = {};
for (const n of names) pems[n] = open(`./${n}.pem`);
const show = (v) => JSON.stringify(v, (k, x) =>
  typeof x === 'bigint' ? 'bigint:' + x.toString(16) : (typeof x === 'function' ? undefined : x));
const tryShow = (label, f) => {
  try { console.log(label, show(f())); } catch (e) { console.log(label, 'threw', e.name, String(e)); }
};
export const options = { iterations: 1 };
export default function () {
  for (const n of names) {
    tryShow(`${n} parse`, () => x509.parse(pems[n]));
    tryShow(`${n} subject`, () => getSubject(pems[n]));
    tryShow(`${n} issuer`, () => x509.getIssuer(pems[n]));
    tryShow(`${n} altNames`, () => x509.getAltNames(pems[n]));
  }
  const rsa = x509.parse(pems.rsa);
  console.log('rsa types', typeof rsa.publicKey.key.n, typeof rsa.publicKey.key.e,
    Array.isArray(rsa.fingerPrint), Object.keys(rsa).join(','));
  const ec = x509.parse(pems.ec);
  console.log('ec types', typeof ec.publicKey.key.curve, typeof ec.publicKey.key.x, typeof ec.publicKey.key.y);
  const dsa = x509.parse(pems.dsa);
  console.log('dsa types', typeof dsa.publicKey.key.y, typeof dsa.publicKey.key.parameters.p);
  for (const bad of ['nope', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n']) {
    tryShow('bad parse', () => x509.parse(bad));
    tryShow('bad subject', () => x509.getSubject(bad));
    tryShow('bad altNames', () => x509.getAltNames(bad));
  }
}
"#;

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

fn run(mut c: Command, dir: &Path) -> Output {
    c.current_dir(dir)
        .args(["-q", "--log-output=stdout", "--log-format=raw", "x509.js"])
        .output_bounded()
        .expect("run")
}

#[test]
fn x509_answers_as_k6_for_every_kind_of_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/x509_certs");
    for c in CERTS {
        let name = format!("{c}.pem");
        std::fs::copy(here.join(&name), dir.path().join(&name)).unwrap();
    }
    std::fs::write(dir.path().join("x509.js"), SCRIPT).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_loadlab"));
    c.args(["k6", "run"]);
    let ours = run(c, dir.path());
    let out = lines(&ours);
    let all = out.join("\n");
    assert_eq!(
        ours.status.code(),
        Some(0),
        "{all}\n{}",
        String::from_utf8_lossy(&ours.stderr)
    );
    let line = |prefix: &str| {
        out.iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{all}"))
            .clone()
    };
    // What k6 answers, known without it.
    let rsa = line("rsa parse ");
    for part in [
        r#""commonName":"excouncil.zz","country":"ZZ","postalCode":"99999","stateOrProvinceName":"Kopuncezis Krais""#,
        r#""organizationalUnitName":["Exumbran Council"]"#,
        r#"{"type":"2.5.4.9","value":"221B Baker Street"}"#,
        r#""altNames":["council.exumbran.zz","about.excouncil.zz","inquiries@excouncil.zz","192.0.2.25","2001:db8::1","http://press.excouncil.zz"]"#,
        r#""signatureAlgorithm":"SHA256-RSA""#,
        r#""publicKey":{"algorithm":"RSA","key":{"n":"bigint:"#,
        r#""e":65537"#,
    ] {
        assert!(rsa.contains(part), "{part} not in {rsa}");
    }
    assert!(line("ec parse ").contains(r#""signatureAlgorithm":"ECDSA-SHA384""#));
    assert!(line("ec parse ").contains(r#""organizationalUnitName":["One","Two"]"#));
    assert!(line("pss parse ").contains(r#""signatureAlgorithm":"UnknownSignatureAlgorithm""#));
    assert!(line("pss2 parse ").contains(r#""signatureAlgorithm":"SHA256-RSAPSS""#));
    assert!(line("dsa parse ").contains(r#""algorithm":"DSA","key":{"parameters":{"p":"bigint:"#));
    assert_eq!(
        line("ed parse "),
        "ed parse threw GoError GoError: unsupported public key algorithm"
    );
    assert!(line("ed subject ").contains(r#""organizationalUnitName":[]"#));
    assert_eq!(
        line("rsa types"),
        "rsa types bigint number true subject,issuer,notBefore,notAfter,altNames,signatureAlgorithm,fingerPrint,publicKey"
    );
    assert_eq!(line("ec types"), "ec types object bigint bigint");
    assert_eq!(line("dsa types"), "dsa types bigint bigint");
    assert!(all.contains("bad parse threw GoError GoError: failed to decode certificate PEM file"));
    assert!(all.contains(
        "bad subject threw GoError GoError: failed to parse certificate: x509: malformed certificate"
    ));

    if let Some(k6) =
        loadlab_testkit::k6::k6_or_skip("x509_answers_as_k6_for_every_kind_of_certificate")
    {
        let theirs = run(loadlab_testkit::k6::run_command(&k6), dir.path());
        let kout = lines(&theirs);
        assert_eq!(theirs.status.code(), Some(0), "k6:\n{}", kout.join("\n"));
        // k6 ends its output with the summary; the log lines come first.
        let n = out.iter().take_while(|l| !l.trim().is_empty()).count();
        assert!(n >= CERTS.len() * 4 + 9, "{all}");
        for (i, ours) in out[..n].iter().enumerate() {
            assert_eq!(Some(ours), kout.get(i), "line {i} differs from k6's");
        }
    }
}
