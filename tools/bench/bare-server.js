// The baselines of the quote benchmark: bare Fastify endpoints answering quote-sized JSON bodies, in their own process.
'use strict';
const Fastify = require('fastify');

const app = Fastify({ logger: false });
app.post('/v1/offramp/quote', async (request) => ({
  success: true,
  data: { quoteId: 'qt_01JDX3J1W5Z8Q4N6V7M2K9P0RS', cryptoAmount: request.body.amount, tokenSymbol: request.body.tokenSymbol, fiatAmount: '149250.00', fiatCurrency: 'NGN', rate: '1492.5', fees: { platformFee: '20.00', providerFee: '199.25', swapFee: '20.00', totalFee: '239.25' }, expiresAt: new Date().toISOString() },
}));
app.post('/v1/swap/quote', async (request) => ({
  success: true,
  data: { quoteId: 'qt_01JDX3J1W5Z8Q4N6V7M2K9P0RS', fromToken: request.body.fromToken, toToken: request.body.toToken, fromChain: request.body.fromChain, toChain: request.body.toChain, fromAmount: request.body.amount, toAmount: '0.030967381729', minimumToAmount: '0.030812544820', rate: '0.000310604', slippage: 0.5, isCrossChain: false, fees: { platformFee: '0.3', platformFeeFiat: '450.00', bridgeFee: '0', totalFee: '0.3' }, route: { steps: 1, estimatedTime: '~15 seconds', providers: ['Uniswap V2'] }, expiresAt: new Date().toISOString() },
}));
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).then(() => process.stdout.write('ready\n'));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
