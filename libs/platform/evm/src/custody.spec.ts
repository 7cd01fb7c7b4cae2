import { SecretBox } from '@ramp/keys';
import { keccak256, recoverMessageAddress, toHex } from 'viem';
import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { DEVELOPMENT_MNEMONIC, HdCustody, accountOwnerPath, evmPath, mnemonicProblem } from './custody';

describe('custody - keys from one sealed seed, behind the Signer port', () => {
  const box = new SecretBox(undefined, false);
  const path = evmPath("m/44'/60'/1'/0/0");

  it('derives the same signer from the sealed seed as from the seed itself, and a different one per path', () => {
    const sealed = box.seal(DEVELOPMENT_MNEMONIC);
    expect(sealed).not.toContain(DEVELOPMENT_MNEMONIC.split(' ')[0]);
    const fromSealed = HdCustody.sealed(sealed, box);
    expect(fromSealed.signer(path).address).toBe(HdCustody.development().signer(path).address);
    expect(fromSealed.signer(evmPath("m/44'/60'/2'/0/0")).address).not.toBe(fromSealed.signer(path).address);
  });

  it("derives BIP-39/BIP-32's keys, viem's own for the same mnemonic and path (the hot wallets never move)", () => {
    for (const at of [path, evmPath("m/44'/60'/3'/0/7"), accountOwnerPath('wal_1')]) {
      expect(HdCustody.development().signer(at).address).toBe(mnemonicToAccount(DEVELOPMENT_MNEMONIC, { path: at }).address);
    }
  });

  it("gives each managed wallet its own account owner, the same on every call, never a hot wallet's path, and signs hashes EIP-191", async () => {
    const custody = HdCustody.development();
    expect(accountOwnerPath('wal_1')).toBe(accountOwnerPath('wal_1'));
    expect(accountOwnerPath('wal_1')).toMatch(/^m\/44'\/60'\/4337'\/\d+\/\d+$/);
    expect(accountOwnerPath('wal_2')).not.toBe(accountOwnerPath('wal_1'));
    const owner = custody.derived(accountOwnerPath('wal_1'));
    expect(owner.address).toBe(custody.derived(accountOwnerPath('wal_1')).address);
    expect(owner.address).not.toBe(custody.derived(accountOwnerPath('wal_2')).address);
    const hash = keccak256(toHex('a user operation'));
    expect(await recoverMessageAddress({ message: { raw: hash }, signature: await owner.signHash(hash) })).toBe(owner.address);
  });

  it("opens each environment's seed, and refuses the development seed for live chains whatever NODE_ENV says, or one seed for both", () => {
    const live = generateMnemonic(english);
    const testPaths = [path];
    const livePaths = [evmPath("m/44'/60'/1'/0/0")];
    const settings = { testSeed: '', liveSeed: box.seal(live), box, production: false, testPaths, livePaths };
    const both = HdCustody.forEnvironments(settings);
    expect(both.test.signer(path).address).toBe(HdCustody.development().signer(path).address);
    expect(both.live!.signer(path).address).not.toBe(both.test.signer(path).address);
    expect(HdCustody.forEnvironments({ ...settings, livePaths: [] }).live).toBeUndefined();
    expect(() => HdCustody.forEnvironments({ ...settings, liveSeed: '' })).toThrow('CUSTODY_SEED is required when LIVE_CHAINS is set');
    expect(() => HdCustody.forEnvironments({ ...settings, liveSeed: box.seal(DEVELOPMENT_MNEMONIC) })).toThrow('CUSTODY_SEED is the development seed');
    // A public seed (anvil's default, the local chains' own; a BIP-39 test vector) is anyone's keys.
    for (const seed of [
      'test test test test test test test test test test test junk',
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    ])
      expect(() => HdCustody.forEnvironments({ ...settings, liveSeed: box.seal(seed) })).toThrow('CUSTODY_SEED is a public seed');
    expect(() => HdCustody.forEnvironments({ ...settings, testSeed: box.seal(live) })).toThrow('CUSTODY_SEED and TEST_CUSTODY_SEED are the same seed');
    expect(() => HdCustody.forEnvironments({ ...settings, testSeed: '', production: true })).toThrow('TEST_CUSTODY_SEED is required in production');
    expect(() => HdCustody.forEnvironments({ ...settings, liveSeed: box.seal(DEVELOPMENT_MNEMONIC.replace('glare', 'glass')) })).toThrow(
      'CUSTODY_SEED is not a BIP-39 mnemonic: its checksum does not match',
    );
  });

  it('refuses a seed sealed with another key', () => {
    const sealed = new SecretBox(Buffer.alloc(32, 7).toString('base64'), false).seal(DEVELOPMENT_MNEMONIC);
    expect(() => HdCustody.sealed(sealed, box)).toThrow();
  });

  it('prints neither key nor seed, whatever serialises it', () => {
    const custody = HdCustody.development();
    const signer = custody.signer(path);
    const printed = [JSON.stringify(custody), JSON.stringify(signer), String(custody), Object.values(signer).map(String).join()].join();
    for (const word of DEVELOPMENT_MNEMONIC.split(' ')) expect(printed).not.toContain(word);
    expect(Object.keys(signer).sort()).toEqual(['address', 'signHash', 'signTransaction']);
  });

  it('takes only BIP-44 EVM paths', () => {
    expect(() => evmPath("m/44'/0'/0'/0/0")).toThrow('BIP-44');
    expect(evmPath("m/44'/60'/0'/0/7")).toBe("m/44'/60'/0'/0/7");
  });

  it('knows a BIP-39 mnemonic by its words and its checksum', () => {
    expect(mnemonicProblem(DEVELOPMENT_MNEMONIC)).toBeUndefined();
    expect(mnemonicProblem('test test test test test test test test test test test junk')).toBeUndefined();
    expect(mnemonicProblem('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about')).toBeUndefined();
    // One word swapped for another of the list: the checksum no longer matches.
    expect(mnemonicProblem(DEVELOPMENT_MNEMONIC.replace('glare', 'glass'))).toBe('its checksum does not match: a word is mistyped or out of order');
    expect(mnemonicProblem('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon')).toMatch(/checksum/);
    expect(mnemonicProblem(DEVELOPMENT_MNEMONIC.replace('casual', 'casualx'))).toBe('word 1 is not in the BIP-39 English wordlist');
    expect(mnemonicProblem('casual mad major')).toBe('a BIP-39 mnemonic has 12, 15, 18, 21 or 24 words, not 3');
  });
});
