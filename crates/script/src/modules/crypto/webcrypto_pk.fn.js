(k) => (b) => {
  // crypto.subtle's public-key algorithms, as k6 v1 has them: RSASSA-PKCS1-v1_5,
  // RSA-PSS and RSA-OAEP keys, ECDSA and ECDH keys on P-256, P-384 and P-521;
  // their keys generated, imported and exported as spki, pkcs8, jwk (and raw
  // for an EC public key). `b` is what the rest of crypto.subtle shares: the
  // CryptoKey class, its key material, domError, bufferSource and hashOf.
  // A key's material is its DER (PKCS#8 private, SPKI public); the work is
  // done natively (modules/crypto/subtle/pk.rs), whose errors are strings.
  const RSA = ['RSASSA-PKCS1-v1_5', 'RSA-PSS', 'RSA-OAEP'];
  const EC = ['ECDSA', 'ECDH'];
  const CURVES = ['P-256', 'P-384', 'P-521'];
  // WebCrypto's algorithm names are matched without regard to case.
  const canon = (alg) => RSA.concat(EC).find((n) => n.toUpperCase() === b.algName(alg));
  const handles = (alg) => canon(alg) !== undefined;
  const ok = (r, name = 'OperationError') => {
    if (typeof r === 'string') throw b.domError(name, r);
    return r[0];
  };
  // The usages a key of this algorithm and type may have.
  const USAGES = {
    'RSASSA-PKCS1-v1_5': { public: ['verify'], private: ['sign'] },
    'RSA-PSS': { public: ['verify'], private: ['sign'] },
    'RSA-OAEP': { public: ['encrypt', 'wrapKey'], private: ['decrypt', 'unwrapKey'] },
    ECDSA: { public: ['verify'], private: ['sign'] },
    ECDH: { public: [], private: ['deriveKey', 'deriveBits'] },
  };
  const checkUsages = (name, type, usages) => {
    for (const u of usages) {
      if (!USAGES[name][type].includes(u)) throw b.domError('SyntaxError', `invalid key usage: ${u} for a ${type} ${name} key`);
    }
  };
  // The key's algorithm object and the parameters the natives take.
  const algorithmOf = (alg) => {
    const name = canon(alg);
    if (RSA.includes(name)) {
      const [hash] = b.hashOf(alg.hash);
      return { name, hash: { name: hash } };
    }
    const curve = String(alg.namedCurve);
    if (!CURVES.includes(curve)) throw b.domError('NotSupportedError', `unsupported named curve: ${curve}`);
    return { name, namedCurve: curve };
  };
  const kind = (algorithm) => (RSA.includes(algorithm.name) ? 'RSA' : 'EC');
  const make = (type, extractable, algorithm, usages, der) => new b.CryptoKey(type, extractable, algorithm, usages, der);
  const material = (key, name, usage) => {
    const der = b.keys.get(key);
    if (der === undefined || key.algorithm.name !== name) throw b.domError('InvalidAccessError', `the key is not an ${name} key`);
    if (usage !== undefined && !key.usages.includes(usage)) throw b.domError('InvalidAccessError', `the key does not allow ${usage}`);
    return der;
  };
  // JWK `alg` values, as WebCrypto writes them.
  const jwkAlg = (algorithm) => {
    const bits = algorithm.hash ? algorithm.hash.name.slice(4) : '';
    switch (algorithm.name) {
      case 'RSASSA-PKCS1-v1_5': return `RS${bits === '1' ? '1' : bits}`;
      case 'RSA-PSS': return `PS${bits}`;
      case 'RSA-OAEP': return bits === '1' ? 'RSA-OAEP' : `RSA-OAEP-${bits}`;
      default: return undefined;
    }
  };
  const hashName = (algorithm) => (algorithm.hash ? algorithm.hash.name : 'SHA-256');
  return {
    handles,
    generateKey(alg, extractable, usages) {
      const algorithm = algorithmOf(alg);
      const name = algorithm.name;
      let bits = 0;
      let exp = new ArrayBuffer(0);
      if (kind(algorithm) === 'RSA') {
        bits = Number(alg.modulusLength);
        exp = b.bufferSource(alg.publicExponent);
        algorithm.modulusLength = bits;
        algorithm.publicExponent = new Uint8Array(exp.slice(0));
      }
      const want = Array.from(usages);
      const pub = want.filter((u) => USAGES[name].public.includes(u));
      const priv = want.filter((u) => USAGES[name].private.includes(u));
      if (pub.length + priv.length !== want.length || priv.length === 0) {
        throw b.domError('SyntaxError', `invalid key usages for ${name}: ${want.join(', ')}`);
      }
      const [privateDer, publicDer] = ok(k.pkGenerate(kind(algorithm), bits, exp, algorithm.namedCurve || ''));
      return {
        publicKey: make('public', true, algorithm, pub, publicDer),
        privateKey: make('private', Boolean(extractable), { ...algorithm }, priv, privateDer),
      };
    },
    importKey(format, keyData, alg, extractable, usages) {
      const algorithm = algorithmOf(alg);
      let data;
      if (format === 'jwk') {
        if (keyData === null || typeof keyData !== 'object') throw b.domError('DataError', 'a JWK must be an object');
        data = JSON.stringify(keyData);
      } else if (['spki', 'pkcs8', 'raw'].includes(format)) {
        data = b.bufferSource(keyData);
      } else {
        throw b.domError('NotSupportedError', `unsupported key format: ${format}`);
      }
      const r = ok(k.pkImport(kind(algorithm), algorithm.namedCurve || '', format, data), 'DataError');
      const type = r.private ? 'private' : 'public';
      if (kind(algorithm) === 'RSA') {
        algorithm.modulusLength = r.bits;
        algorithm.publicExponent = new Uint8Array(r.exp);
      }
      const use = Array.from(usages);
      checkUsages(algorithm.name, type, use);
      return make(type, Boolean(extractable), algorithm, use, r.der);
    },
    exportKey(format, key) {
      const der = b.keys.get(key);
      const out = ok(k.pkExport(kind(key.algorithm), key.algorithm.namedCurve || '', format, der, key.type === 'private'),
        'InvalidAccessError');
      if (format !== 'jwk') return out;
      const jwk = JSON.parse(out);
      const alg = jwkAlg(key.algorithm);
      if (alg !== undefined) jwk.alg = alg;
      jwk.ext = key.extractable;
      jwk.key_ops = Array.from(key.usages);
      return jwk;
    },
    sign(alg, key, data) {
      const name = canon(alg);
      const der = material(key, name, 'sign');
      const hash = name === 'ECDSA' ? b.hashOf(alg.hash)[0] : hashName(key.algorithm);
      const p = { alg: name, hash, curve: key.algorithm.namedCurve || '', salt: Number(alg.saltLength || 0) };
      return ok(k.pkSign(p, der, b.bufferSource(data)));
    },
    verify(alg, key, signature, data) {
      const name = canon(alg);
      const der = material(key, name, 'verify');
      const hash = name === 'ECDSA' ? b.hashOf(alg.hash)[0] : hashName(key.algorithm);
      const p = { alg: name, hash, curve: key.algorithm.namedCurve || '', salt: Number(alg.saltLength || 0) };
      return ok(k.pkVerify(p, der, b.bufferSource(signature), b.bufferSource(data)));
    },
    crypt(alg, key, data, encrypt, usage) {
      const name = canon(alg);
      if (name !== 'RSA-OAEP') throw b.domError('NotSupportedError', `algorithm ${name} cannot ${usage}`);
      const der = material(key, name, usage);
      const label = alg.label === undefined ? new ArrayBuffer(0) : b.bufferSource(alg.label);
      return ok(k.rsaOaep(encrypt, hashName(key.algorithm), der, b.bufferSource(data), label));
    },
    deriveBits(alg, key, length, usage) {
      const der = material(key, 'ECDH', usage);
      const peer = alg.public;
      if (!(peer instanceof b.CryptoKey) || peer.type !== 'public' || peer.algorithm.name !== 'ECDH') {
        throw b.domError('InvalidAccessError', 'algorithm.public must be an ECDH public key');
      }
      if (peer.algorithm.namedCurve !== key.algorithm.namedCurve) {
        throw b.domError('InvalidAccessError', 'the public key is on another curve');
      }
      const secret = ok(k.ecdh(key.algorithm.namedCurve, der, b.keys.get(peer)));
      if (length === null || length === undefined) return secret;
      const bits = Number(length);
      if (bits > secret.byteLength * 8) throw b.domError('OperationError', `length ${bits} is longer than the secret`);
      const out = new Uint8Array(secret.slice(0, Math.ceil(bits / 8)));
      if (bits % 8 !== 0) out[out.length - 1] &= (0xff << (8 - (bits % 8))) & 0xff;
      return out.buffer;
    },
  };
}
