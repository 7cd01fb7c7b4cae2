/**
 * `a, b or c` (or `a, b and c`): one of the code's lists in the reference's prose, so that the prose follows the list
 * (`base or bsc` from PRIMARY_CHAINS).
 */
export function spelled(values: readonly string[], conjunction: 'or' | 'and' = 'or'): string {
  if (values.length <= 1) return values.join('');
  return `${values.slice(0, -1).join(', ')} ${conjunction} ${values[values.length - 1]}`;
}
