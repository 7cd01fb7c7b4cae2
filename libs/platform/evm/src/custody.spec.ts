import { SecretBox } from '@ramp/keys';
import { DEVELOPMENT_MNEMONIC, HdCustody, evmPath } from './custody';

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

  it('takes the sealed seed of the settings, and refuses to fall back to the development seed in production', () => {
    const sealed = box.seal(DEVELOPMENT_MNEMONIC);
    expect(HdCustody.fromSettings(sealed, box, true).signer(path).address).toBe(HdCustody.development().signer(path).address);
    expect(HdCustody.fromSettings('', box, false).signer(path).address).toBe(HdCustody.development().signer(path).address);
    expect(() => HdCustody.fromSettings('', box, true)).toThrow('CUSTODY_SEED is required in production');
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
    expect(Object.keys(signer).sort()).toEqual(['address', 'signTransaction']);
  });

  it('takes only BIP-44 EVM paths', () => {
    expect(() => evmPath("m/44'/0'/0'/0/0")).toThrow('BIP-44');
    expect(evmPath("m/44'/60'/0'/0/7")).toBe("m/44'/60'/0'/0/7");
  });
});
