// A webhook receiver as your backend would write one: it checks `x-service-signature` (hex HMAC-SHA256 of the raw
// body, under the webhook's secret) in constant time, and answers 200 to a delivery it verified, 400 to any other.
// Run it from the repository's root, after the README's "Getting started" made tmp/hook-key.pem and tmp/hook-cert.pem:
//   WEBHOOK_SECRET=whsec_... node examples/receiver.js
const crypto = require('crypto');
const fs = require('fs');
const https = require('https');

const secret = process.env.WEBHOOK_SECRET; // the whsec_… returned when the webhook was registered
const port = Number(process.env.RECEIVER_PORT || 4443);
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the secret (whsec_…) returned when the webhook was registered.');
  process.exit(2);
}

const tls = { key: fs.readFileSync('tmp/hook-key.pem'), cert: fs.readFileSync('tmp/hook-cert.pem') };
https
  .createServer(tls, (req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const expected = crypto.createHmac('sha256', secret).update(rawBody).digest();
      const given = Buffer.from(String(req.headers['x-service-signature'] ?? ''), 'hex');
      const valid = given.length === expected.length && crypto.timingSafeEqual(given, expected);
      console.log(valid ? 'verified' : 'REFUSED: bad signature', rawBody.toString());
      res.writeHead(valid ? 200 : 400).end();
    });
  })
  .listen(port, () => console.log(`receiving on https://localhost:${port}`));
