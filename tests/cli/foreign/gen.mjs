// Makes Argon2 and bcrypt strings with independent JavaScript implementations
// for tests/cli/foreign.tsv: npm install @noble/hashes bcryptjs hash-wasm; node gen.mjs
import { argon2id, argon2i, argon2d } from '@noble/hashes/argon2.js';
import bcrypt from 'bcryptjs';
import { argon2id as wid, argon2i as wi, argon2d as wd } from 'hash-wasm';
const b64 = (u) => Buffer.from(u).toString('base64').replace(/=+$/, '');
const rows = [];
const salt = Buffer.from('noble-salt-0123456');
for (const [name, fn, p, m, t] of [['argon2id', argon2id, 2, 256, 2], ['argon2i', argon2i, 1, 128, 3], ['argon2d', argon2d, 4, 64, 1]]) {
  const pw = `noble ${name} pässword`;
  const h = fn(pw, salt, { t, m, p, dkLen: 24 });
  rows.push([`@noble/hashes ${name}`, pw, `$${name}$v=19$m=${m},t=${t},p=${p}$${b64(salt)}$${b64(h)}`]);
}
for (const [name, fn] of [['argon2id', wid], ['argon2i', wi], ['argon2d', wd]]) {
  const pw = `hash-wasm ${name}`;
  const enc = await fn({ password: pw, salt: Buffer.from('hash-wasm-salt-16'), parallelism: 3, iterations: 2, memorySize: 384, hashLength: 32, outputType: 'encoded' });
  rows.push([`hash-wasm ${name}`, pw, enc]);
}
rows.push(['bcryptjs', 'bcryptjs secret', bcrypt.hashSync('bcryptjs secret', 6)]);
for (const r of rows) console.log(r.join('\t'));
