// The baseline of the quote benchmark: a bare Fastify endpoint answering a quote-sized JSON body, in its own process.
'use strict';
const Fastify = require('fastify');

const app = Fastify({ logger: false });
app.post('/v1/offramp/quote', async (request) => ({
  success: true,
  data: { quoteId: 'qt_01JDX3J1W5Z8Q4N6V7M2K9P0RS', cryptoAmount: request.body.amount, tokenSymbol: request.body.tokenSymbol, fiatAmount: '149250.00', fiatCurrency: 'NGN', rate: '1492.5', fees: { platformFee: '20.00', providerFee: '199.25', swapFee: '20.00', totalFee: '239.25' }, expiresAt: new Date().toISOString() },
}));
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).then(() => process.stdout.write('ready\n'));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
