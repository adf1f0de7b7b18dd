//! `k6/net/grpc` side by side with k6 v1.8.1 against the tests' Greeter
//! (loadlab_testkit::grpc): protos loaded at init, unary calls with
//! metadata, tags and statuses, the response's message, headers and
//! trailers, `grpc_req_duration` and its tags, the summary's GRPC
//! section; server, client and bidirectional streams with their events
//! and counts.

use loadlab_testkit::proc::BoundedOutput;

const SCRIPT: &str = r#"
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
const methods = client.load([], 'greeter.proto');
export const options = { iterations: 2, thresholds: { grpc_req_duration: ['p(95)<5000'] } };
export default () => {
  client.connect(__ENV.ADDR, { plaintext: true, timeout: '5s' });
  const r = client.invoke('loadlab.test.Greeter/SayHello', { name: 'Ann', times: 2 },
    { metadata: { 'x-test': 'v1' }, tags: { kind: 'hello' } });
  check(r, {
    'status is OK': (x) => x.status === grpc.StatusOK,
    'the message': (x) => x.message.message === 'hello Ann',
    'int64 as a string': (x) => x.message.count === '4',
    'unpopulated fields emitted': (x) => Array.isArray(x.message.notes) && x.message.notes.length === 0,
    'a header field': (x) => x.headers['x-echo'][0] === 'v1',
    'a trailer field': (x) => x.trailers['x-trailer'][0] === 't',
    'no error': (x) => x.error === null,
  });
  const f = client.invoke('/loadlab.test.Greeter/Fail', { name: 'Bob' });
  check(f, {
    'not found': (x) => x.status === grpc.StatusNotFound,
    'its message': (x) => x.error.message === 'no greeting for Bob',
    // A trailers-only answer's fields are its trailers, as gRPC reads them.
    'trailers only': (x) => Object.keys(x.headers).length === 0 && x.trailers['content-type'][0] === 'application/grpc',
    'its code': (x) => x.error.code === 5,
    'a default message': (x) => x.message.message === '' && x.message.count === '0',
  });
  check(methods, {
    'the loaded methods': (m) => m.length === 6 && m[0].full_method === '/loadlab.test.Greeter/SayHello'
      && m[0].package === 'loadlab.test' && m[0].service === 'Greeter' && m[1].name === 'Fail'
      && m[1].is_server_stream === false && m[2].is_server_stream === true
      && m[3].is_client_stream === true && m[4].is_client_stream && m[4].is_server_stream,
  });
  let thrown = '';
  try { client.invoke('loadlab.test.Greeter/Nope', {}); } catch (e) { thrown = String(e); }
  check(thrown, { 'an unknown method throws': (t) => t.includes('method "/loadlab.test.Greeter/Nope" not found') });
  client.close();
};
"#;

/// The tags of the `grpc_req_duration` points of `--out json`'s file,
/// each as sorted `key=value` pairs (the address left out).
fn grpc_points(json: &str, addr: &str) -> Vec<String> {
    let mut out: Vec<String> = json
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["metric"] == "grpc_req_duration" && v["type"] == "Point")
        .map(|v| {
            let mut tags: Vec<String> = v["data"]["tags"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("").replace(addr, "ADDR")))
                .collect();
            tags.sort();
            tags.join(" ")
        })
        .collect();
    out.sort();
    out
}

/// A directory holding `script` as `name` beside the Greeter's proto.
fn greeter_dir(name: &str, script: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), script).unwrap();
    std::fs::write(
        dir.path().join("greeter.proto"),
        loadlab_testkit::grpc::GREETER_PROTO,
    )
    .unwrap();
    dir
}

#[test]
fn unary_calls_answer_and_are_measured_as_k6() {
    let dir = greeter_dir("g.js", SCRIPT);
    let addr = loadlab_testkit::grpc::greeter().to_string();
    let mut points = Vec::new();
    for tool in crate::side_by_side::tools("unary_calls_answer_and_are_measured_as_k6") {
        let name = tool.name;
        let mut cmd = tool.command();
        let json = dir.path().join(format!("{name}.json"));
        let o = cmd
            .current_dir(dir.path())
            .args(["-q", "-e", &format!("ADDR={addr}")])
            .arg(format!("--out=json={}", json.display()))
            .arg("g.js")
            .output_bounded()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{out}\n{err}");
        assert!(out.contains("28 out of 28"), "{name}:\n{out}\n{err}");
        assert!(
            out.contains("    GRPC\n    grpc_req_duration."),
            "{name}:\n{out}"
        );
        assert!(out.contains("✓ 'p(95)<5000'"), "{name}:\n{out}");
        points.push(grpc_points(&std::fs::read_to_string(&json).unwrap(), &addr));
    }
    let want = [
        "group= kind=hello method=SayHello name=/loadlab.test.Greeter/SayHello scenario=default service=loadlab.test.Greeter status=0 url=ADDR/loadlab.test.Greeter/SayHello",
        "group= method=Fail name=/loadlab.test.Greeter/Fail scenario=default service=loadlab.test.Greeter status=5 url=ADDR/loadlab.test.Greeter/Fail",
    ];
    assert_eq!(points[0].len(), 4, "{:?}", points[0]);
    assert_eq!(points[0][0], want[0]);
    assert_eq!(points[0][2], want[1]);
    if points.len() == 2 {
        assert_eq!(points[0], points[1], "loadlab's tags, then k6's");
    }
}

const STREAMS: &str = r#"
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
client.load([], 'greeter.proto');
export const options = { iterations: 2 };
export default () => {
  client.connect(__ENV.ADDR, { plaintext: true });
  const got = { count: [], chat: [], collect: [], broken: [], errors: [], ends: 0 };
  const broken = () => {
    const br = new grpc.Stream(client, 'loadlab.test.Greeter/Broken');
    br.on('data', (m) => got.broken.push(m.message));
    br.on('error', (e) => got.errors.push(`${e.message}:${JSON.stringify(e.details)}`));
    br.on('end', () => {
      got.ends++;
      check(got, {
        'server stream': (g) => g.count.join() === 'n 3,n 2,n 1',
        'client stream': (g) => g.collect.join() === 'x+y+z/3',
        'bidirectional': (g) => g.chat.join() === 'hi a,hi b',
        'data then error': (g) => g.broken.join() === 'q once' && g.errors.join() === 'stream broke:[]',
        'every end': (g) => g.ends === 4,
      });
      if (__ITER === 0) console.log(JSON.stringify(got));
      client.close();
    });
    br.write({ name: 'q' });
    br.end();
  };
  const chat = () => {
    const s = new grpc.Stream(client, 'loadlab.test.Greeter/Chat');
    s.on('data', (m) => { got.chat.push(m.message); if (got.chat.length === 1) s.write({ name: 'b' }); else s.end(); });
    s.on('end', () => { got.ends++; broken(); });
    s.write({ name: 'a' });
  };
  const collect = () => {
    const s = new grpc.Stream(client, 'loadlab.test.Greeter/Collect');
    s.on('data', (m) => got.collect.push(`${m.message}/${m.count}`));
    s.on('end', () => { got.ends++; chat(); });
    for (const n of ['x', 'y', 'z']) s.write({ name: n });
    s.end();
  };
  const down = new grpc.Stream(client, 'loadlab.test.Greeter/CountDown', { tags: { kind: 'down' } });
  down.on('data', (m) => got.count.push(m.message));
  down.on('end', () => { got.ends++; collect(); });
  down.write({ name: 'n', times: 3 });
  down.end();
};
"#;

/// Each (metric, tags) of the `grpc_*` points of `--out json`'s file
/// (`status` only on `grpc_req_duration`: k6 v1.8.1 sometimes puts it on
/// a stream's message counts too), sorted, without duplicates.
fn grpc_series(json: &str, addr: &str) -> Vec<String> {
    let mut out: Vec<String> = json
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| {
            v["type"] == "Point" && v["metric"].as_str().is_some_and(|m| m.starts_with("grpc_"))
        })
        .map(|v| {
            let metric = v["metric"].as_str().unwrap_or("").to_string();
            let mut tags: Vec<String> = v["data"]["tags"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| *k != "status" || metric == "grpc_req_duration")
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("").replace(addr, "ADDR")))
                .collect();
            tags.sort();
            format!("{metric} {}", tags.join(" "))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn server_client_and_bidirectional_streams_as_k6() {
    let dir = greeter_dir("s.js", STREAMS);
    let addr = loadlab_testkit::grpc::greeter().to_string();
    let mut seen = Vec::new();
    for tool in crate::side_by_side::tools("server_client_and_bidirectional_streams_as_k6") {
        let name = tool.name;
        let mut cmd = tool.command();
        let json = dir.path().join(format!("{name}.json"));
        let o = cmd
            .current_dir(dir.path())
            .args(["-q", "-e", &format!("ADDR={addr}")])
            .arg(format!("--out=json={}", json.display()))
            .arg("s.js")
            .output_bounded()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{out}\n{err}");
        assert!(out.contains("10 out of 10"), "{name}:\n{out}\n{err}");
        for row in [
            "grpc_streams.",
            "grpc_streams_msgs_received.",
            "grpc_streams_msgs_sent.",
        ] {
            assert!(out.contains(row), "{name}: {row}\n{out}");
        }
        assert!(out.contains(": 8 "), "{name}: 8 streams\n{out}");
        assert!(out.contains(": 14 "), "{name}: 14 messages each way\n{out}");
        seen.push(grpc_series(&std::fs::read_to_string(&json).unwrap(), &addr));
    }
    assert_eq!(seen[0].len(), 16, "{:#?}", seen[0]);
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "loadlab's series, then k6's");
    }
}

const REFLECT: &str = r#"
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
export const options = { iterations: 2 };
export default () => {
  client.connect(__ENV.ADDR, { plaintext: true, reflect: true });
  const r = client.invoke('loadlab.test.Greeter/SayHello', { name: 'Ref', times: 1 });
  check(r, {
    'found by reflection': (x) => x.message.message === 'hello Ref' && x.message.count === '2',
  });
  let thrown = '';
  try { client.invoke('loadlab.test.Nope/X', {}); } catch (e) { thrown = String(e); }
  check(thrown, { 'only what the server has': (t) => t.includes('not found') });
  client.close();
};
"#;

#[test]
fn server_reflection_finds_the_methods_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("r.js"), REFLECT).unwrap();
    let addr = loadlab_testkit::grpc::greeter().to_string();
    let mut seen = Vec::new();
    for tool in crate::side_by_side::tools("server_reflection_finds_the_methods_as_k6") {
        let name = tool.name;
        let mut cmd = tool.command();
        let json = dir.path().join(format!("{name}.json"));
        let o = cmd
            .current_dir(dir.path())
            .args(["-q", "-e", &format!("ADDR={addr}")])
            .arg(format!("--out=json={}", json.display()))
            .arg("r.js")
            .output_bounded()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{out}\n{err}");
        assert!(out.contains("4 out of 4"), "{name}:\n{out}\n{err}");
        // One sample per call: the reflection's own calls are not sampled.
        seen.push(grpc_points(&std::fs::read_to_string(&json).unwrap(), &addr));
    }
    assert_eq!(seen[0].len(), 2, "{:?}", seen[0]);
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "loadlab's tags, then k6's");
    }
}

const PROTOSET: &str = r#"
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
const methods = client.loadProtoset('greeter.protoset');
export const options = { iterations: 1 };
export default () => {
  client.connect(__ENV.ADDR, { plaintext: true });
  const r = client.invoke('loadlab.test.Greeter/SayHello', { name: 'Set' });
  const h = client.healthCheck();
  const g = client.healthCheck('loadlab.test.Greeter');
  let missing = '';
  try { client.healthCheck('nope.Service'); } catch (e) { missing = String(e); }
  let tls = '';
  try { client.connect(__ENV.ADDR, { tls: { cacerts: ['x'] } }); } catch (e) { tls = String(e); }
  check(null, {
    'methods from the protoset': () => methods.length === 6 && methods[5].name === 'Broken',
    'a call by them': () => r.message.message === 'hello Set',
    // `==`: k6 hands the script Go's enum values (objects that print as
    // SERVING and equal 1), loadlab numbers.
    'the server serves': () => h.status == grpc.HealthCheckServing && h.status == 1,
    'so does the service': () => g.status == grpc.HealthCheckServing,
    'an unknown service throws': () => missing.includes('NotFound') && missing.includes('unknown service'),
    'connect params.tls': () => tls !== '',
  });
  if (__ENV.SHOW) console.log(tls);
};
"#;

#[test]
fn protosets_and_health_checks_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.js"), PROTOSET).unwrap();
    std::fs::write(
        dir.path().join("greeter.protoset"),
        loadlab_testkit::grpc::greeter_protoset(),
    )
    .unwrap();
    let addr = loadlab_testkit::grpc::greeter().to_string();
    for tool in crate::side_by_side::tools("protosets_and_health_checks_as_k6") {
        let name = tool.name;
        let mut cmd = tool.command();
        let o = cmd
            .current_dir(dir.path())
            .args(["-q", "-e", &format!("ADDR={addr}"), "-e", "SHOW=1", "p.js"])
            .output_bounded()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{out}\n{err}");
        assert!(out.contains("6 out of 6"), "{name}:\n{out}\n{err}");
        assert!(
            err.contains("failed to append ca certificate [0] from PEM"),
            "{name}: {err}"
        );
    }
}

const TLS: &str = r#"
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
client.load([], 'greeter.proto');
const [CA, CERT, KEY, FCERT, FKEY] = ['ca', 'cert', 'key', 'fcert', 'fkey'].map((f) => open(`${f}.pem`));
const [AES, DES3, PKCS8] = ['aes', 'des3', 'pkcs8'].map((f) => open(`${f}.pem`));
export const options = { iterations: 1 };
const tried = (tls) => {
  try {
    client.connect(__ENV.ADDR, { tls, timeout: '2s' });
    const r = client.invoke('loadlab.test.Greeter/SayHello', { name: 'again' });
    client.close();
    return r.status === grpc.StatusOK ? 'answered OK' : `answered ${r.status}`;
  } catch (e) {
    return String(e);
  }
};
export default () => {
  client.connect(__ENV.ADDR, { tls: { cacerts: [CA], cert: CERT, key: KEY } });
  const r = client.invoke('loadlab.test.Greeter/SayHello', { name: 'TLS' });
  client.close();
  const foreign = tried({ cacerts: CA, cert: FCERT, key: FKEY });
  const untrusted = tried({ cert: CERT, key: KEY });
  const badCa = tried({ cacerts: ['not a certificate'] });
  const badCert = tried({ cert: 5, key: KEY });
  const badTls = tried('yes');
  const aes = tried({ cacerts: CA, cert: CERT, key: AES, password: 's3cret' });
  const des3 = tried({ cacerts: CA, cert: CERT, key: DES3, password: 's3cret' });
  const wrong = tried({ cacerts: CA, cert: CERT, key: AES, password: 'wrong' });
  const pkcs8 = tried({ cacerts: CA, cert: CERT, key: PKCS8, password: 's3cret' });
  check(null, {
    'a call with a client certificate': () => r.status === grpc.StatusOK && r.message.message === 'hello TLS',
    'a foreign certificate is refused': () => !foreign.startsWith('answered'),
    'an untrusted server is refused': () => !untrusted.startsWith('answered'),
    'a CA that is not PEM is refused': () => badCa.includes('failed to append ca certificate [0] from PEM'),
    'a certificate that is not a string': () => badCert.includes('invalid tls cert value') && badCert.includes('it needs to be a PEM formatted string'),
    'tls that is not an object': () => badTls.includes('invalid tls value'),
    'an encrypted key and its password': () => aes === 'answered OK' && des3 === 'answered OK',
    'a wrong password': () => wrong.includes('x509: decryption password incorrect'),
    'an encrypted PKCS#8 key': () => pkcs8.includes('encrypted pkcs8 formatted key is not supported'),
  });
  console.log([foreign, untrusted, badCa, badCert, badTls, aes, des3, wrong, pkcs8].join(' | '));
};
"#;

#[test]
fn tls_with_cas_and_client_certificates_as_k6() {
    let dir = greeter_dir("t.js", TLS);
    let m = loadlab_testkit::tls::mutual_offering(&[b"h2"]);
    for (f, pem) in [
        ("ca", &m.server_pem),
        ("cert", &m.trusted.0),
        ("key", &m.trusted.1),
        ("fcert", &m.foreign.0),
        ("fkey", &m.foreign.1),
    ] {
        std::fs::write(dir.path().join(format!("{f}.pem")), pem).unwrap();
    }
    // The trusted key encrypted the legacy PEM way (tls.password), and as
    // PKCS#8, which k6 refuses.
    use loadlab_testkit::tls::{TRUSTED_KEY_ENCRYPTED as ENC, TRUSTED_KEY_PKCS8_ENCRYPTED};
    for (f, pem) in [
        ("aes", ENC[2].1),
        ("des3", ENC[3].1),
        ("pkcs8", TRUSTED_KEY_PKCS8_ENCRYPTED),
    ] {
        std::fs::write(dir.path().join(format!("{f}.pem")), pem).unwrap();
    }
    let port = loadlab_testkit::grpc::greeter_tls(m.acceptor.clone()).port();
    for tool in crate::side_by_side::tools("tls_with_cas_and_client_certificates_as_k6") {
        let name = tool.name;
        let o = tool
            .command()
            .current_dir(dir.path())
            .args(["-q", "-e", &format!("ADDR=localhost:{port}"), "t.js"])
            .output_bounded()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{out}\n{err}");
        assert!(out.contains("9 out of 9"), "{name}:\n{out}\n{err}");
    }
}

/// What k6's own examples do: a server stream written to once and never
/// ended (gRPC ends the request side of a method whose client sends one
/// message), a health check (a `grpc_req_duration` sample of its own),
/// and definitions loaded from a folder beside the script's; and
/// connect's message size limits.
const EXAMPLES: &str = r#"
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
client.load([], '../protos/greeter.proto');
export const options = { iterations: 1 };
export default () => {
  client.connect(__ENV.ADDR, { plaintext: true });
  const got = [];
  const s = new grpc.Stream(client, 'loadlab.test.Greeter/CountDown');
  s.on('data', (m) => got.push(m.message));
  s.on('end', () => {
    const h = client.healthCheck();
    check(null, {
      'three replies without end()': () => got.join(',') === 'Zed 3,Zed 2,Zed 1',
      'served': () => h.status == grpc.HealthCheckServing,
    });
    client.close();
    client.connect(__ENV.ADDR, { plaintext: true, maxReceiveSize: 5 });
    const big = client.invoke('loadlab.test.Greeter/SayHello', { name: 'Ann' });
    client.close();
    client.connect(__ENV.ADDR, { plaintext: true, maxSendSize: 3 });
    const sent = client.invoke('loadlab.test.Greeter/SayHello', { name: 'Ann' });
    client.close();
    let bad = '';
    try { client.connect(__ENV.ADDR, { plaintext: true, maxSendSize: 'x' }); } catch (e) { bad = String(e); }
    check(null, {
      'an answer past maxReceiveSize': () => big.status === grpc.StatusResourceExhausted
        && big.error.message.startsWith('grpc: received message larger than max ('),
      'a request past maxSendSize': () => sent.status === grpc.StatusResourceExhausted
        && sent.error.message.startsWith('trying to send message larger than max ('),
      'a size that is not a number': () => bad.includes("invalid maxSendSize value: '\"x\"', it needs to be an integer"),
    });
  });
  s.write({ name: 'Zed', times: 3 });
};
"#;

#[test]
fn a_server_stream_and_a_health_check_as_in_k6s_examples() {
    let dir = tempfile::tempdir().unwrap();
    let scripts = dir.path().join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    std::fs::create_dir_all(dir.path().join("protos")).unwrap();
    std::fs::write(scripts.join("e.js"), EXAMPLES).unwrap();
    std::fs::write(
        dir.path().join("protos/greeter.proto"),
        loadlab_testkit::grpc::GREETER_PROTO,
    )
    .unwrap();
    let addr = loadlab_testkit::grpc::greeter().to_string();
    for tool in crate::side_by_side::tools("a_server_stream_and_a_health_check_as_in_k6s_examples")
    {
        let name = tool.name;
        let json = dir.path().join(format!("{name}.json"));
        let o = tool
            .command()
            .current_dir(&scripts)
            .args(["-q", "-e", &format!("ADDR={addr}")])
            .arg(format!("--out=json={}", json.display()))
            .arg("e.js")
            .output_bounded()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{out}\n{err}");
        assert!(out.contains("5 out of 5"), "{name}:\n{out}\n{err}");
        let calls = std::fs::read_to_string(&json)
            .unwrap()
            .lines()
            .filter(|l| l.contains("\"metric\":\"grpc_req_duration\"") && l.contains("\"Point\""))
            .count();
        // The stream, the health check, the calls past the sizes (k6
        // samples the one refused before it was sent too).
        assert_eq!(calls, 4, "{name}: {calls} calls");
    }
}

/// The dial follows the options' `hosts`, `blockHostnames` and
/// `blacklistIPs`, as HTTP requests do and as k6's dial does (a blocked
/// address is refused before any packet leaves).
const DIALING: &str = r#"
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
client.load([], 'greeter.proto');
export const options = {
  iterations: 1,
  hosts: { 'greeter.test': '127.0.0.1' },
  blockHostnames: ['*.blocked'],
  blacklistIPs: ['10.0.0.0/8'],
};
const refused = (addr) => {
  try { client.connect(addr, { plaintext: true, timeout: '2s' }); return 'connected'; } catch (e) { return String(e); }
};
export default () => {
  client.connect(`greeter.test:${__ENV.PORT}`, { plaintext: true });
  const r = client.invoke('loadlab.test.Greeter/SayHello', { name: 'Host' });
  client.close();
  const name = refused('api.blocked:1');
  const ip = refused('10.1.2.3:1');
  check(null, {
    'a name from hosts': () => r.message.message === 'hello Host',
    'a blocked name': () => name.includes('hostname (api.blocked) is in a blocked pattern (*.blocked)'),
    'a blacklisted address': () => ip.includes('IP (10.1.2.3) is in a blacklisted range (10.0.0.0/8)'),
  });
  console.log(`${name} | ${ip}`);
};
"#;

#[test]
fn the_dial_follows_hosts_and_blocklists_as_k6() {
    let dir = greeter_dir("d.js", DIALING);
    let port = loadlab_testkit::grpc::greeter().port();
    for tool in crate::side_by_side::tools("the_dial_follows_hosts_and_blocklists_as_k6") {
        let name = tool.name;
        let o = tool
            .command()
            .current_dir(dir.path())
            .args(["-q", "-e", &format!("PORT={port}"), "d.js"])
            .output_bounded()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{out}\n{err}");
        assert!(out.contains("3 out of 3"), "{name}:\n{out}\n{err}");
    }
}

/// What a stream does when its script goes wrong, as in k6: a message
/// that does not fit the method's request type ends the stream with an
/// `error` event (code 2) and `end` (`write` returns); a `data` listener
/// that throws calls the stream's `error` listeners with the exception,
/// then its `end` listeners, and the iteration ends with the exception.
const STREAM_FAULTS: &str = r#"
import grpc from 'k6/net/grpc';
const client = new grpc.Client();
client.load([], 'greeter.proto');
export const options = { iterations: 1 };
const log = (...a) => console.log(...a);
export default () => {
  client.connect(__ENV.ADDR, { plaintext: true });
  const bad = new grpc.Stream(client, 'loadlab.test.Greeter/Collect');
  bad.on('data', (m) => log('bad data', JSON.stringify(m)));
  bad.on('error', (e) => log('bad error', JSON.stringify(e)));
  bad.on('end', () => {
    log('bad end');
    const s = new grpc.Stream(client, 'loadlab.test.Greeter/CountDown');
    s.on('data', (m) => { log('data', m.message); throw new Error('listener broke'); });
    s.on('error', (e) => log('error', e.message.split(' at ')[0], JSON.stringify(e.details)));
    s.on('end', () => log('end'));
    s.write({ name: 'n', times: 3 });
    s.end();
  });
  try { bad.write({ name: { nested: 1 } }); log('write returned'); } catch (e) { log('write threw', String(e)); }
  bad.end();
};
"#;

#[test]
fn a_bad_message_and_a_throwing_listener_end_the_stream_as_k6() {
    let dir = greeter_dir("f.js", STREAM_FAULTS);
    let addr = loadlab_testkit::grpc::greeter().to_string();
    for tool in
        crate::side_by_side::tools("a_bad_message_and_a_throwing_listener_end_the_stream_as_k6")
    {
        let o = tool.run_in(
            dir.path(),
            &[
                "-q",
                "--log-output=stdout",
                "--log-format=raw",
                "-e",
                &format!("ADDR={addr}"),
                "f.js",
            ],
        );
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let err = String::from_utf8_lossy(&o.stderr);
        let name = tool.name;
        assert_eq!(o.status.code(), Some(0), "{name}:\n{out}\n{err}");
        let at = |line: &str| {
            out.lines()
                .position(|l| l.starts_with(line))
                .unwrap_or_else(|| panic!("{name}: no {line:?} in\n{out}\n{err}"))
        };
        // The message that does not encode.
        let bad = at(
            r#"bad error {"code":2,"details":[],"message":"can't serialise request object to protocol buffer: "#,
        );
        assert!(at("write returned") < bad, "{name}:\n{out}");
        assert!(bad < at("bad end"), "{name}:\n{out}");
        assert!(
            !out.contains("bad data"),
            "{name}: no data after the error\n{out}"
        );
        // The listener that throws.
        let data = at("data n 3");
        let error = at("error Error: listener broke []");
        assert!(data < error && error < at("end"), "{name}:\n{out}");
        assert!(
            format!("{out}{err}").contains("Error: listener broke\n\tat "),
            "{name}: the iteration ends with the exception\n{out}\n{err}"
        );
    }
}

const AGENT: &str = r#"
import grpc from 'k6/net/grpc';
const client = new grpc.Client();
client.load([], 'greeter.proto');
export const options = { iterations: 1 };
export default () => {
  client.connect(__ENV.ADDR, { plaintext: true });
  const r = client.invoke('loadlab.test.Greeter/SayHello', { name: 'Ann' });
  console.log(`agent=${r.headers['x-user-agent'][0]}`);
  client.close();
};
"#;

/// A gRPC call's `user-agent` is the `userAgent` option (or
/// `--user-agent`), as k6's client takes it at connect; k6 appends its
/// gRPC library's own (`grpc-go/…`), loadlab sends the option alone.
/// Without one, loadlab's calls say `loadlab-k6` (k6's, `grpc-go/…`).
#[test]
fn calls_carry_the_user_agent_option_as_k6() {
    let dir = greeter_dir("a.js", AGENT);
    let addr = loadlab_testkit::grpc::greeter().to_string();
    for tool in crate::side_by_side::tools("calls_carry_the_user_agent_option_as_k6") {
        let name = tool.name;
        let run = |extra: &[&str]| {
            let mut args = vec!["-q", "--log-output=stdout", "--log-format=raw"];
            args.extend_from_slice(extra);
            let a = format!("ADDR={addr}");
            args.extend_from_slice(&["-e", &a, "a.js"]);
            let o = tool.run_in(dir.path(), &args);
            let out = String::from_utf8_lossy(&o.stdout).into_owned();
            assert_eq!(o.status.code(), Some(0), "{name}:\n{out}");
            out.lines()
                .find_map(|l| l.strip_prefix("agent="))
                .unwrap_or_else(|| panic!("{name}: no agent in\n{out}"))
                .to_string()
        };
        let flag = run(&["--user-agent", "my-agent/1"]);
        assert!(flag.starts_with("my-agent/1"), "{name}: {flag}");
        let default = run(&[]);
        if name == "loadlab" {
            assert_eq!(flag, "my-agent/1");
            assert_eq!(default, "loadlab-k6");
        } else {
            assert!(default.starts_with("grpc-go/"), "{name}: {default}");
        }
    }
}
