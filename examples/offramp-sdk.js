// A sandbox off-ramp with the TypeScript SDK, from quote to the verified `offramp.completed` webhook. It runs its own
// HTTPS receiver and registers a webhook for it, and deletes the webhook and closes the receiver at the end, also when
// a step fails. Run it from the repository's root, after `npm run sdk:build` and the README's "Getting started":
//   KEY=service_test_... node examples/offramp-sdk.js
const fs = require('fs');
const https = require('https');
const { setTimeout: sleep } = require('timers/promises');
const { RampClient, verifyWebhookSignature } = require('../libs/sdk'); // or require('@ramp-platform/sdk')

const PORT = Number(process.env.RECEIVER_PORT || 4444); // the curl receiver (examples/receiver.js) may still hold 4443
const ramp = new RampClient({ apiKey: process.env.KEY, baseUrl: process.env.API || 'http://127.0.0.1:3000/v1' });

/**
 * Listens on PORT and keeps every body whose signature verifies under `receiver.secret`;
 * `receiver.eventFor(transactionId)` resolves with that transaction's event.
 */
function startReceiver() {
  const tls = { key: fs.readFileSync('tmp/hook-key.pem'), cert: fs.readFileSync('tmp/hook-cert.pem') };
  const verified = [];
  const waiting = [];
  const receiver = {
    secret: undefined,
    eventFor: (transactionId) =>
      new Promise((resolve) => {
        const event = verified.find((candidate) => candidate.data.transactionId === transactionId);
        if (event) resolve(event);
        else waiting.push({ transactionId, resolve });
      }),
  };
  receiver.server = https.createServer(tls, (req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const valid = verifyWebhookSignature(rawBody, req.headers['x-service-signature'], receiver.secret);
      res.writeHead(valid ? 200 : 400).end();
      if (!valid) return;
      const event = JSON.parse(rawBody.toString('utf8'));
      verified.push(event);
      for (const waiter of waiting.filter((candidate) => candidate.transactionId === event.data.transactionId)) waiter.resolve(event);
    });
  });
  return new Promise((resolve, reject) => receiver.server.once('error', reject).listen(PORT, () => resolve(receiver)));
}

async function main() {
  const receiver = await startReceiver(); // a port in use fails here, before anything is registered
  let hook;
  try {
    hook = await ramp.webhooks.create({ url: `https://localhost:${PORT}/hooks/ramp`, events: ['offramp.completed', 'offramp.failed'] });
    receiver.secret = hook.secret;

    const quote = await ramp.offramp.quote({ amount: '100', tokenSymbol: 'USDC', bankCode: '058', accountNumber: '0123456785', chain: 'base' });
    console.log('quote', quote.quoteId, quote.bankAccount.accountName, 'receives', quote.payoutAmount, 'NGN');
    const started = await ramp.offramp.initiate({
      quoteId: quote.quoteId,
      sourceAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      reference: 'payout-2',
    });
    console.log('initiated', started.transactionId, started.status, 'send the USDC to', started.depositAddress);
    await ramp.sandbox.depositOfframp(started.transactionId); // the sandbox plays the deposit

    const done = await ramp.offramp.waitFor(started.transactionId, { intervalMs: 1000, timeoutMs: 60_000 });
    console.log(done.status, done.ramp.payoutAmount, done.ramp.fiatCurrency, 'to', done.ramp.bankAccount.accountName);
    const noDelivery = sleep(30_000, undefined, { ref: false }).then(() => Promise.reject(new Error('no verified webhook within 30 s')));
    const event = await Promise.race([receiver.eventFor(started.transactionId), noDelivery]);
    console.log('verified webhook', event.event, event.data.transactionId);
  } finally {
    receiver.server.close();
    receiver.server.closeAllConnections(); // and its keep-alive connections, so that the process can end
    if (hook) await ramp.webhooks.delete(hook.id);
  }
}

main().catch((error) => {
  console.error(error); // a RampError: code, status, field, requestId
  process.exitCode = 1;
});
