(k) => {
  // The WebCrypto global as k6 v1 has it: `crypto.getRandomValues`,
  // `crypto.randomUUID` and, of `crypto.subtle`, `digest` (SHA-1/256/384/
  // 512), HMAC keys (`importKey`/`exportKey` raw and jwk, `generateKey`,
  // `sign`, `verify`), PBKDF2 (`importKey` raw, `deriveBits`), AES-GCM,
  // AES-CBC and AES-CTR keys (`importKey`/`exportKey` raw and jwk,
  // `generateKey`, `encrypt`, `decrypt`), the public-key algorithms
  // (webcrypto_pk.fn.js: RSA and elliptic curves), and `deriveKey`,
  // `wrapKey` and `unwrapKey` over those.
  const domError = (name, message) => {
    const e = new Error(message);
    e.name = name;
    return e;
  };
  const HASHES = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };
  const hashOf = (alg) => {
    const name = String(typeof alg === 'object' && alg !== null ? alg.name : alg).toUpperCase();
    const ours = HASHES[name];
    if (ours === undefined) throw domError('NotSupportedError', `unsupported hash algorithm: ${name}`);
    return [name, ours];
  };
  const bufferSource = (data) => {
    if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return k.toBytes(data);
    throw new TypeError('data must be an ArrayBuffer, a TypedArray or a DataView');
  };
  const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array,
    Int32Array, Uint32Array, BigInt64Array, BigUint64Array];
  const keys = new WeakMap();
  class CryptoKey {
    constructor(type, extractable, algorithm, usages, raw) {
      this.type = type;
      this.extractable = extractable;
      this.algorithm = algorithm;
      this.usages = usages;
      keys.set(this, raw);
    }
  }
  const hmacKey = (key, usage) => {
    const raw = keys.get(key);
    if (raw === undefined || key.algorithm.name !== 'HMAC') {
      throw domError('InvalidAccessError', 'the key is not an HMAC key');
    }
    if (!key.usages.includes(usage)) {
      throw domError('InvalidAccessError', `the key does not allow ${usage}`);
    }
    return raw;
  };
  const isHmac = (alg) => String(typeof alg === 'object' && alg !== null ? alg.name : alg).toUpperCase() === 'HMAC';
  const algName = (alg) => String(typeof alg === 'object' && alg !== null ? alg.name : alg).toUpperCase();
  const isAes = (alg) => ['AES-GCM', 'AES-CBC', 'AES-CTR'].includes(algName(alg));
  const aesKey = (alg, key, usage) => {
    const raw = keys.get(key);
    if (raw === undefined || key.algorithm.name !== algName(alg)) {
      throw domError('InvalidAccessError', `the key is not an ${algName(alg)} key`);
    }
    if (!key.usages.includes(usage)) throw domError('InvalidAccessError', `the key does not allow ${usage}`);
    return raw;
  };
  // encrypt and decrypt: the mode's parameters checked as k6 does, the
  // work done natively (modules/crypto/subtle/aes.rs).
  const aes = (alg, key, data, encrypt, usage) => {
    const name = algName(alg);
    if (!isAes(alg)) throw domError('NotSupportedError', `algorithm ${name} is not supported by loadlab k6 for ${usage}`);
    const raw = aesKey(alg, key, usage);
    let iv;
    let aad = new ArrayBuffer(0);
    if (name === 'AES-GCM') {
      iv = bufferSource(alg.iv);
      if (alg.additionalData !== undefined) aad = bufferSource(alg.additionalData);
      if (alg.tagLength !== undefined && Number(alg.tagLength) !== 128) {
        throw domError('NotSupportedError', `tagLength ${alg.tagLength} is not supported by loadlab k6 (128 only)`);
      }
    } else if (name === 'AES-CBC') {
      iv = bufferSource(alg.iv);
    } else {
      iv = bufferSource(alg.counter);
      const length = Number(alg.length);
      if (!(length >= 1 && length <= 128)) throw domError('OperationError', 'invalid counter length');
    }
    const out = k.aes(name, encrypt, raw, iv, aad, bufferSource(data));
    if (typeof out === 'string') throw domError('OperationError', out);
    return out;
  };
  // JWK of a secret key (`kty: "oct"`): its `alg` as WebCrypto names it.
  const octAlg = (algorithm) => (algorithm.name === 'HMAC'
    ? `HS${algorithm.hash.name.slice(4)}` : `A${algorithm.length}${algorithm.name.slice(4)}`);
  const fromJwk = (format, keyData) => {
    if (format !== 'jwk') return keyData;
    if (keyData === null || typeof keyData !== 'object' || keyData.kty !== 'oct' || typeof keyData.k !== 'string') {
      throw domError('DataError', 'the JWK is not a secret key (kty "oct" with "k")');
    }
    const raw = k.b64decode(keyData.k.replace(/=+$/, ''), 'rawurl', false);
    if (typeof raw === 'number') throw domError('DataError', 'the JWK\'s "k" is not base64url');
    return raw;
  };
  const isPbkdf2 = (alg) => String(typeof alg === 'object' && alg !== null ? alg.name : alg).toUpperCase() === 'PBKDF2';
  const pk = k.pkSubtle({ CryptoKey, keys, domError, bufferSource, hashOf, algName });
  const mac = (key, data) => k.digest(HASHES[key.algorithm.hash.name], keys.get(key), [bufferSource(data)], 'binary');
  const subtle = {
    digest(alg, data) {
      return new Promise((resolve) => {
        const [, ours] = hashOf(alg);
        resolve(k.digest(ours, undefined, [bufferSource(data)], 'binary'));
      });
    },
    importKey(format, keyData, alg, extractable, usages) {
      return new Promise((resolve) => {
        if (pk.handles(alg)) {
          resolve(pk.importKey(format, keyData, alg, extractable, usages));
          return;
        }
        if (format !== 'raw' && !(format === 'jwk' && !isPbkdf2(alg))) {
          throw domError('NotSupportedError', `key format ${format} is not supported by loadlab k6`);
        }
        keyData = fromJwk(format, keyData);
        if (isPbkdf2(alg)) {
          resolve(new CryptoKey('secret', false, { name: 'PBKDF2' }, Array.from(usages), bufferSource(keyData)));
          return;
        }
        if (isAes(alg)) {
          const raw = bufferSource(keyData);
          if (![16, 24, 32].includes(raw.byteLength)) {
            throw domError('DataError', `invalid key length: ${raw.byteLength * 8} bits (128, 192 or 256)`);
          }
          resolve(new CryptoKey('secret', Boolean(extractable), { name: algName(alg), length: raw.byteLength * 8 },
            Array.from(usages), raw));
          return;
        }
        if (!isHmac(alg)) throw domError('NotSupportedError', `algorithm ${JSON.stringify(alg)} is not supported by loadlab k6`);
        const [hash] = hashOf(alg.hash);
        const raw = bufferSource(keyData);
        const length = alg.length === undefined ? raw.byteLength * 8 : Number(alg.length);
        resolve(new CryptoKey('secret', Boolean(extractable), { name: 'HMAC', hash: { name: hash }, length },
          Array.from(usages), raw));
      });
    },
    exportKey(format, key) {
      return new Promise((resolve) => {
        if (!(key instanceof CryptoKey)) throw new TypeError('key must be a CryptoKey');
        if (!key.extractable) throw domError('InvalidAccessError', 'the key is not extractable');
        if (pk.handles(key.algorithm)) {
          resolve(pk.exportKey(format, key));
          return;
        }
        if (format === 'jwk' && key.algorithm.name !== 'PBKDF2') {
          resolve({ kty: 'oct', k: k.b64encode(keys.get(key), 'rawurl'), alg: octAlg(key.algorithm),
            ext: key.extractable, key_ops: Array.from(key.usages) });
          return;
        }
        if (format !== 'raw') throw domError('NotSupportedError', `key format ${format} is not supported by loadlab k6`);
        resolve(keys.get(key).slice(0));
      });
    },
    sign(alg, key, data) {
      return new Promise((resolve) => {
        if (pk.handles(alg)) {
          resolve(pk.sign(alg, key, data));
          return;
        }
        if (!isHmac(alg)) throw domError('NotSupportedError', 'only HMAC signatures are supported by loadlab k6');
        hmacKey(key, 'sign');
        resolve(mac(key, data));
      });
    },
    verify(alg, key, signature, data) {
      return new Promise((resolve) => {
        if (pk.handles(alg)) {
          resolve(pk.verify(alg, key, signature, data));
          return;
        }
        if (!isHmac(alg)) throw domError('NotSupportedError', 'only HMAC signatures are supported by loadlab k6');
        hmacKey(key, 'verify');
        const want = new Uint8Array(mac(key, data));
        const got = new Uint8Array(bufferSource(signature));
        let diff = want.length ^ got.length;
        for (let i = 0; i < Math.min(want.length, got.length); i++) diff |= want[i] ^ got[i];
        resolve(diff === 0);
      });
    },
    generateKey(alg, extractable, usages) {
      return new Promise((resolve) => {
        if (pk.handles(alg)) {
          resolve(pk.generateKey(alg, extractable, usages));
          return;
        }
        if (isAes(alg)) {
          const length = Number(alg.length);
          if (![128, 192, 256].includes(length)) {
            throw domError('OperationError', `invalid key length: ${alg.length} bits (128, 192 or 256)`);
          }
          resolve(new CryptoKey('secret', Boolean(extractable), { name: algName(alg), length },
            Array.from(usages), k.randomBytes(length / 8)));
          return;
        }
        if (!isHmac(alg)) throw domError('NotSupportedError', `algorithm ${JSON.stringify(alg)} is not supported by loadlab k6 for generateKey`);
        const [hash] = hashOf(alg.hash);
        // The hash's block size unless a length is given, as WebCrypto says.
        const length = alg.length === undefined ? (hash === 'SHA-384' || hash === 'SHA-512' ? 1024 : 512) : Number(alg.length);
        if (!(length > 0) || length % 8 !== 0) throw domError('OperationError', `invalid key length: ${alg.length}`);
        resolve(new CryptoKey('secret', Boolean(extractable), { name: 'HMAC', hash: { name: hash }, length },
          Array.from(usages), k.randomBytes(length / 8)));
      });
    },
    encrypt(alg, key, data) {
      return new Promise((resolve) => resolve(crypt(alg, key, data, true, 'encrypt')));
    },
    decrypt(alg, key, data) {
      return new Promise((resolve) => resolve(crypt(alg, key, data, false, 'decrypt')));
    },
    deriveBits(alg, key, length) {
      return new Promise((resolve) => resolve(deriveBits(alg, key, length, 'deriveBits')));
    },
    // deriveKey: the bits the derived key's algorithm needs, imported raw.
    deriveKey(alg, key, derivedAlg, extractable, usages) {
      return new Promise((resolve) => {
        const name = algName(derivedAlg);
        let length;
        if (isAes(derivedAlg)) {
          length = Number(derivedAlg.length);
        } else if (isHmac(derivedAlg)) {
          const [hash] = hashOf(derivedAlg.hash);
          length = derivedAlg.length === undefined ? (hash === 'SHA-384' || hash === 'SHA-512' ? 1024 : 512) : Number(derivedAlg.length);
        } else {
          throw domError('NotSupportedError', `deriveKey cannot make ${name} keys (AES and HMAC only)`);
        }
        const bits = deriveBits(alg, key, length, 'deriveKey');
        resolve(subtle.importKey('raw', bits, derivedAlg, extractable, usages));
      });
    },
    // wrapKey: the key exported (a JWK as its JSON text), then encrypted.
    wrapKey(format, key, wrappingKey, wrapAlg) {
      return subtle.exportKey(format, key).then((exported) => {
        // A JWK's JSON is ASCII.
        const bytes = format === 'jwk' ? Uint8Array.from(JSON.stringify(exported), (c) => c.charCodeAt(0)).buffer : exported;
        return crypt(wrapAlg, wrappingKey, bytes, true, 'wrapKey');
      });
    },
    unwrapKey(format, wrapped, unwrappingKey, unwrapAlg, keyAlg, extractable, usages) {
      return new Promise((resolve) => {
        const bytes = crypt(unwrapAlg, unwrappingKey, wrapped, false, 'unwrapKey');
        const keyData = format === 'jwk' ? JSON.parse(String.fromCharCode(...new Uint8Array(bytes))) : bytes;
        resolve(subtle.importKey(format, keyData, keyAlg, extractable, usages));
      });
    },
  };
  // encrypt, decrypt, wrapKey, unwrapKey: AES here, RSA-OAEP in `pk`.
  function crypt(alg, key, data, encrypt, usage) {
    if (pk.handles(alg)) return pk.crypt(alg, key, data, encrypt, usage);
    if (usage === 'wrapKey' || usage === 'unwrapKey') {
      if (!isAes(alg)) throw domError('NotSupportedError', `algorithm ${algName(alg)} cannot ${usage} in loadlab k6`);
    }
    return aes(alg, key, data, encrypt, usage);
  }
  function deriveBits(alg, key, length, usage) {
    if (algName(alg) === 'ECDH') return pk.deriveBits(alg, key, length, usage);
    return pbkdf2Bits(alg, key, length, usage);
  }
  function pbkdf2Bits(alg, key, length, usage) {
    if (!isPbkdf2(alg)) throw domError('NotSupportedError', `algorithm ${algName(alg)} cannot ${usage} in loadlab k6 (PBKDF2 and ECDH)`);
    const raw = keys.get(key);
    if (raw === undefined || key.algorithm.name !== 'PBKDF2') {
      throw domError('InvalidAccessError', 'the key is not a PBKDF2 key');
    }
    if (!key.usages.includes(usage)) throw domError('InvalidAccessError', `the key does not allow ${usage}`);
    const [, ours] = hashOf(alg.hash);
    const bits = Number(length);
    if (!(bits > 0) || bits % 8 !== 0) {
      throw domError('OperationError', 'currently only multiples of 8 are supported for length');
    }
    const iterations = Number(alg.iterations);
    if (!(iterations >= 1)) throw domError('OperationError', 'iterations must be at least 1');
    return k.pbkdf2(ours, raw, bufferSource(alg.salt), iterations, bits / 8);
  }
  const crypto = {
    subtle,
    getRandomValues(a) {
      if (!INTEGER_ARRAYS.some((T) => a instanceof T)) {
        throw k.goError("TypeMismatchError: typedArray parameter isn't a TypedArray instance");
      }
      // As k6: GoErrors whose messages begin with the DOMException's name.
      if (a.byteLength > 65536) {
        throw k.goError('QuotaExceededError: typedArray parameter is too big; maximum length is 65536');
      }
      new Uint8Array(a.buffer, a.byteOffset, a.byteLength).set(new Uint8Array(k.randomBytes(a.byteLength)));
      return a;
    },
    randomUUID() {
      const b = new Uint8Array(k.randomBytes(16));
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
  Object.defineProperty(globalThis, 'crypto', { value: crypto, writable: true, configurable: true });
}
