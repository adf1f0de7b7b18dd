//! `params.auth: 'ntlm'` (MS-NLMP, NTLMv2), as k6 v1.8.1 does it: the
//! request goes first without credentials; when the answer is a 401
//! offering `NTLM` (or `Negotiate`), a NEGOTIATE message follows, and the
//! 401 that carries the server's CHALLENGE is answered by an AUTHENTICATE
//! message computed from the URL's user (`DOMAIN\user` or `user`) and
//! password. The three go on the same connection (NTLM authenticates a
//! connection); each exchange is measured.
//!
//! NTLMv2 only, no key exchange, no signing or sealing: a challenge that
//! asks for NTLMv1 (`NEGOTIATE_LM_KEY`) or key exchange gets no answer,
//! and the first 401 is the response, as k6's client gives it.

use base64::Engine as _;
use hmac::{KeyInit, Mac};

const SIGNATURE: &[u8; 8] = b"NTLMSSP\0";

// The flags of MS-NLMP 2.2.2.5 that matter here.
const UNICODE: u32 = 1;
const NTLM: u32 = 1 << 9;
const ALWAYS_SIGN: u32 = 1 << 15;
const LM_KEY: u32 = 1 << 7;
const EXTENDED_SESSION_SECURITY: u32 = 1 << 19;
const TARGET_INFO: u32 = 1 << 23;
const VERSION: u32 = 1 << 25;
const N128: u32 = 1 << 29;
const KEY_EXCH: u32 = 1 << 30;
const N56: u32 = 1 << 31;

/// The AV pair of the challenge's target information with the server's time.
const AV_TIMESTAMP: u16 = 7;

/// Which `WWW-Authenticate` scheme an answer offers, preferring `NTLM` to
/// `Negotiate` (and both to `Basic`, which is not answered); `None` when
/// it offers neither. The scheme's token (base64) comes with it.
pub(super) fn offered<'a>(
    headers: impl Iterator<Item = (&'a str, &'a str)>,
) -> Option<(&'a str, &'a str)> {
    const PREFERENCE: [&str; 3] = ["NTLM", "Negotiate", "Basic"];
    let mut best: Option<(usize, &str)> = None;
    let values = headers
        .filter(|(k, _)| k.eq_ignore_ascii_case("www-authenticate"))
        .map(|(_, v)| v);
    for v in values {
        let rank = PREFERENCE
            .iter()
            .position(|s| v == *s || v.strip_prefix(s).is_some_and(|r| r.starts_with(' ')));
        if let Some(rank) = rank
            && best.is_none_or(|(b, _)| rank < b)
        {
            best = Some((rank, v));
        }
    }
    let (rank, v) = best?;
    if rank == 2 {
        return None;
    }
    let (scheme, token) = v.split_once(' ').unwrap_or((v, ""));
    Some((scheme, token))
}

/// The NEGOTIATE message (no domain or workstation, version 6.1.7601),
/// base64 as it goes in `Authorization: NTLM …`.
pub(super) fn negotiate() -> String {
    let flags = TARGET_INFO | N56 | N128 | UNICODE | EXTENDED_SESSION_SECURITY | NTLM | ALWAYS_SIGN;
    let mut m = Vec::with_capacity(40);
    m.extend_from_slice(SIGNATURE);
    m.extend_from_slice(&1u32.to_le_bytes());
    m.extend_from_slice(&flags.to_le_bytes());
    // Domain and workstation: empty fields pointing at the end.
    for _ in 0..2 {
        m.extend_from_slice(&0u16.to_le_bytes());
        m.extend_from_slice(&0u16.to_le_bytes());
        m.extend_from_slice(&40u32.to_le_bytes());
    }
    m.extend_from_slice(&version());
    base64::engine::general_purpose::STANDARD.encode(m)
}

/// Windows 7 SP1's version field, which k6's client sends.
fn version() -> [u8; 8] {
    let mut v = [0u8; 8];
    v[0] = 6;
    v[1] = 1;
    v[2..4].copy_from_slice(&7601u16.to_le_bytes());
    v[7] = 15;
    v
}

/// What the AUTHENTICATE message needs of a CHALLENGE message.
#[derive(Debug, PartialEq)]
struct Challenge {
    flags: u32,
    server_challenge: [u8; 8],
    target_info: Option<Vec<u8>>,
    timestamp: Option<[u8; 8]>,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// A CHALLENGE message read; `None` when it is not a valid one.
fn challenge(b: &[u8]) -> Option<Challenge> {
    if b.get(..8)? != SIGNATURE || u32_at(b, 8)? != 2 {
        return None;
    }
    let flags = u32_at(b, 20)?;
    let server_challenge: [u8; 8] = b.get(24..32)?.try_into().ok()?;
    let info_len = usize::from(u16_at(b, 40).unwrap_or(0));
    let (mut target_info, mut timestamp) = (None, None);
    if info_len > 0 {
        let at = u32_at(b, 44)? as usize;
        let info = b.get(at..at.checked_add(info_len)?)?;
        let mut i = 0;
        loop {
            let id = u16_at(info, i)?;
            if id == 0 {
                break;
            }
            let len = usize::from(u16_at(info, i + 2)?);
            let value = info.get(i + 4..i + 4 + len)?;
            if id == AV_TIMESTAMP {
                timestamp = value.try_into().ok();
            }
            i += 4 + len;
        }
        target_info = Some(info.to_vec());
    }
    Some(Challenge {
        flags,
        server_challenge,
        target_info,
        timestamp,
    })
}

fn hmac_md5(key: &[u8], parts: &[&[u8]]) -> [u8; 16] {
    let mut mac = hmac::Hmac::<md5::Md5>::new_from_slice(key).expect("any key length");
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().into()
}

fn utf16le(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// NTOWFv2: HMAC-MD5 of the upper-case user and the domain, keyed by the
/// MD4 of the password (MS-NLMP 3.3.2).
fn ntowf_v2(password: &str, user: &str, domain: &str) -> [u8; 16] {
    use md4::Digest as _;
    let nt_hash = md4::Md4::digest(utf16le(password));
    hmac_md5(&nt_hash, &[&utf16le(&(user.to_uppercase() + domain))])
}

/// `DOMAIN\user` split; any other name is the user's, with no domain.
fn split_user(name: &str) -> (&str, &str) {
    match name.split_once('\\') {
        Some((domain, user)) => (user, domain),
        None => (name, ""),
    }
}

/// Windows' time now: 100 ns since 1601.
fn filetime_now() -> [u8; 8] {
    let since_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() / 100) as u64;
    (since_unix + 116_444_736_000_000_000).to_le_bytes()
}

/// The AUTHENTICATE message answering `token` (a CHALLENGE, base64), base64
/// as it goes in `Authorization`; `None` when the token is not a challenge
/// or asks for what k6's client does not do.
pub(super) fn authenticate(token: &str, name: &str, password: &str) -> Option<String> {
    let b = base64::engine::general_purpose::STANDARD
        .decode(token.trim())
        .ok()?;
    let ch = challenge(&b)?;
    if name.is_empty() && password.is_empty() {
        return None;
    }
    let client_challenge: [u8; 8] = rand::random();
    let m = authenticate_message(&ch, name, password, client_challenge, filetime_now())?;
    Some(base64::engine::general_purpose::STANDARD.encode(m))
}

fn authenticate_message(
    ch: &Challenge,
    name: &str,
    password: &str,
    client_challenge: [u8; 8],
    now: [u8; 8],
) -> Option<Vec<u8>> {
    if ch.flags & (LM_KEY | KEY_EXCH) != 0 || ch.flags & UNICODE == 0 {
        return None;
    }
    let (user, domain) = split_user(name);
    let key = ntowf_v2(password, user, domain);
    let timestamp = ch.timestamp.unwrap_or(now);
    let info = ch.target_info.as_deref().unwrap_or(&[]);
    let mut blob = vec![1, 1, 0, 0, 0, 0, 0, 0];
    blob.extend_from_slice(&timestamp);
    blob.extend_from_slice(&client_challenge);
    blob.extend_from_slice(&[0; 4]);
    blob.extend_from_slice(info);
    blob.extend_from_slice(&[0; 4]);
    let proof = hmac_md5(&key, &[&ch.server_challenge, &blob]);
    let nt: Vec<u8> = proof.iter().copied().chain(blob).collect();
    // LMv2 only when the server sent no target information, as k6's client.
    let lm: Vec<u8> = if ch.target_info.is_none() {
        let p = hmac_md5(&key, &[&ch.server_challenge, &client_challenge]);
        p.iter().copied().chain(client_challenge).collect()
    } else {
        Vec::new()
    };
    let fields = [lm, nt, utf16le(domain), utf16le(user), Vec::new()];
    // Header (12), five fields (8 each), 8 reserved bytes, the flags.
    let mut at = 12 + 5 * 8 + 8 + 4;
    let mut m = Vec::new();
    m.extend_from_slice(SIGNATURE);
    m.extend_from_slice(&3u32.to_le_bytes());
    for f in &fields {
        let len = u16::try_from(f.len()).ok()?;
        m.extend_from_slice(&len.to_le_bytes());
        m.extend_from_slice(&len.to_le_bytes());
        m.extend_from_slice(&u32::try_from(at).ok()?.to_le_bytes());
        at += f.len();
    }
    m.extend_from_slice(&[0; 8]);
    m.extend_from_slice(&(ch.flags & !VERSION).to_le_bytes());
    for f in fields {
        m.extend_from_slice(&f);
    }
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MS-NLMP 4.2.4's example: user "User", domain "Domain", password
    /// "Password", server challenge 0123456789abcdef, client challenge
    /// aa×8, time zero, and its target information.
    #[test]
    fn ntlm_v2_response_matches_the_specifications_example() {
        let key = ntowf_v2("Password", "User", "Domain");
        assert_eq!(hex(&key), "0c868a403bfd7a93a3001ef22ef02e3f");
        let info = [
            0x02, 0x00, 0x0c, 0x00, 0x44, 0x00, 0x6f, 0x00, 0x6d, 0x00, 0x61, 0x00, 0x69, 0x00,
            0x6e, 0x00, 0x01, 0x00, 0x0c, 0x00, 0x53, 0x00, 0x65, 0x00, 0x72, 0x00, 0x76, 0x00,
            0x65, 0x00, 0x72, 0x00, 0x00, 0x00, 0x00, 0x00,
        ];
        let ch = Challenge {
            flags: UNICODE | NTLM | TARGET_INFO,
            server_challenge: [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef],
            target_info: Some(info.to_vec()),
            timestamp: None,
        };
        let m = authenticate_message(&ch, "Domain\\User", "Password", [0xaa; 8], [0; 8]).unwrap();
        // NtChallengeResponse: the field at 20..28 of the message.
        let len = usize::from(u16_at(&m, 20).unwrap());
        let at = u32_at(&m, 24).unwrap() as usize;
        let nt = &m[at..at + len];
        assert_eq!(hex(&nt[..16]), "68cd0ab851e51c96aabc927bebef6a1c");
        assert_eq!(u16_at(&m, 12), Some(0), "no LMv2 with target information");
    }

    #[test]
    fn a_challenge_is_read_and_refused_when_it_asks_for_ntlm_v1() {
        let mut b = SIGNATURE.to_vec();
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&[0; 8]); // target name
        b.extend_from_slice(&(UNICODE | NTLM | TARGET_INFO).to_le_bytes());
        b.extend_from_slice(&[7; 8]); // server challenge
        b.extend_from_slice(&[0; 8]);
        let info = [7u8, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0];
        b.extend_from_slice(&16u16.to_le_bytes());
        b.extend_from_slice(&16u16.to_le_bytes());
        b.extend_from_slice(&48u32.to_le_bytes());
        b.extend_from_slice(&info);
        let ch = challenge(&b).unwrap();
        assert_eq!(ch.server_challenge, [7; 8]);
        assert_eq!(ch.timestamp, Some([1, 2, 3, 4, 5, 6, 7, 8]));
        assert!(authenticate_message(&ch, "u", "p", [0; 8], [0; 8]).is_some());
        let v1 = Challenge {
            flags: ch.flags | LM_KEY,
            ..ch
        };
        assert!(authenticate_message(&v1, "u", "p", [0; 8], [0; 8]).is_none());
        assert!(challenge(&b[..30]).is_none(), "cut short");
        assert!(
            challenge(b"NTLMSSP\0\x01\0\0\0").is_none(),
            "not a challenge"
        );
    }

    #[test]
    fn ntlm_is_preferred_to_negotiate_and_basic_is_not_answered() {
        let h = |v: &'static [&'static str]| v.iter().map(|v| ("WWW-Authenticate", *v));
        assert_eq!(offered(h(&["Negotiate", "NTLM"])), Some(("NTLM", "")));
        assert_eq!(offered(h(&["Negotiate abc="])), Some(("Negotiate", "abc=")));
        assert_eq!(offered(h(&["Basic realm=\"x\""])), None);
        assert_eq!(offered(h(&["NTLMX"])), None);
        let m = base64::engine::general_purpose::STANDARD
            .decode(negotiate())
            .unwrap();
        assert_eq!(m.len(), 40);
        assert_eq!(u32_at(&m, 12), Some(0xa088_8201));
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
}
