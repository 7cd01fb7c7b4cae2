export * from './limits';
export * from './ramp-fees';
export * from './ramp-quotes';
export * from './swap-quotes';
export * from './pools';
export * from './pool-average';
