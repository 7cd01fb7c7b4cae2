import { complianceReason, listedCounterparty, parseDenylist } from './screening';

describe('screening - a live ramp whose counterparty is on the denylist is held', () => {
  const listed = '0x8576aCC5C05D6Ce88f4e49bf65BdF0C62F91353C';

  it('reads one EVM address per line, any case, skipping blanks and comments, counting other lines as ignored', () => {
    const denylist = parseDenylist(
      [
        '# OFAC SDN digital currency addresses, ETH',
        listed,
        '',
        '   0x7F367CC41522CE07553E823BF3BE79A889DEBE1B   # trailing comment',
        '1FfmbHfnpaZjKFvyi1okTjJJusN455paPH',
        'TNaRAoLUyYEV2uF7GUrzSjRQTU8v5ZJ5VR',
        '0x123',
      ].join('\r\n'),
    );
    expect([...denylist.addresses]).toEqual([listed.toLowerCase(), '0x7f367cc41522ce07553e823bf3be79a889debe1b']);
    expect(denylist.ignored).toBe(3);
    expect(parseDenylist('')).toEqual({ addresses: new Set(), ignored: 0 });
  });

  it('names the first listed counterparty, whatever its case, and none when no address is listed or given', () => {
    const denylist = parseDenylist(listed);
    expect(
      listedCounterparty(denylist, [
        { address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', role: 'deposit sender' },
        { address: listed.toLowerCase(), role: 'source address' },
      ]),
    ).toEqual({ address: listed.toLowerCase(), role: 'source address' });
    expect(listedCounterparty(denylist, [{ address: listed.toUpperCase().replace('0X', '0x'), role: 'destination address' }])).toEqual({
      address: listed.toUpperCase().replace('0X', '0x'),
      role: 'destination address',
    });
    expect(
      listedCounterparty(denylist, [
        { address: null, role: 'deposit sender' },
        { address: undefined, role: 'source address' },
      ]),
    ).toBeUndefined();
    expect(listedCounterparty(parseDenylist(''), [{ address: listed, role: 'deposit sender' }])).toBeUndefined();
  });

  it('gives operators a reason naming the role and the file', () => {
    expect(complianceReason('deposit sender')).toMatch(/^The deposit sender is on the screening denylist \(SCREENING_DENYLIST_FILE\)/);
  });
});
