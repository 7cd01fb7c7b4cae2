import { isInfrastructureError } from './outage';

describe('isInfrastructureError', () => {
  it.each([
    [{ code: '08006', message: 'connection failure' }],
    [{ code: '57P01', message: 'terminating connection due to administrator command' }],
    [{ code: '57P03', message: 'the database system is starting up' }],
    [{ code: '53300', message: 'too many connections' }],
    [{ code: '40001', message: 'could not serialize access' }],
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    [new Error('Connection terminated unexpectedly')],
    [new Error('timeout exceeded when trying to connect')],
    [{ code: 'TIMEOUT', message: 'TIMEOUT' }],
    [{ code: 'SERVICE_UNAVAILABLE', message: 'The ledger service is not running' }],
  ])('counts %j as an outage', (error) => {
    expect(isInfrastructureError(error)).toBe(true);
  });

  it.each([
    [new Error('cannot handle this one')],
    [{ code: '23505', message: 'duplicate key' }],
    [{ code: '22P02', message: 'invalid input syntax for type uuid' }],
    [undefined],
    ['TIMEOUT'],
  ])('counts %j as a fault of the work itself', (error) => {
    expect(isInfrastructureError(error)).toBe(false);
  });
});
