import { AllowedHosts, checkTargetUrl, forbiddenResolution } from './target';

const none = new AllowedHosts([]);

function refusal(url: string, allowed = none): string | undefined {
  const check = checkTargetUrl(url, allowed);
  return check.ok ? undefined : check.message;
}

describe('checkTargetUrl', () => {
  it('accepts a public https URL and says its host must still be resolved', () => {
    const check = checkTargetUrl('https://hooks.merchant.ng/ramp?x=1', none);
    expect(check).toMatchObject({ ok: true, needsLookup: true });
  });

  it.each([
    ['http://hooks.merchant.ng/', 'must use https://'],
    ['ftp://hooks.merchant.ng/', 'must use https://'],
    ['hooks.merchant.ng/path', 'must be an absolute https:// URL'],
    ['https://user:pw@hooks.merchant.ng/', 'must not contain credentials'],
    ['https://hooks.merchant.ng/#frag', 'must not contain a fragment (#...)'],
    ['https://localhost:8443/', 'must not target a loopback host name (localhost)'],
    ['https://127.0.0.1/', 'must not target a loopback address (127.0.0.1)'],
    ['https://2130706433/', 'must not target a loopback address (127.0.0.1)'],
    ['https://0x7f.1/', 'must not target a loopback address (127.0.0.1)'],
    ['https://017700000001/', 'must not target a loopback address (127.0.0.1)'],
    ['https://[::1]/', 'must not target a loopback address (::1)'],
    ['https://[::ffff:127.0.0.1]/', 'must not target a loopback address (::ffff:7f00:1)'],
    ['https://[::ffff:169.254.169.254]/', 'must not target a cloud metadata address (::ffff:a9fe:a9fe)'],
    ['https://169.254.169.254/latest/meta-data', 'must not target a cloud metadata address (169.254.169.254)'],
    ['https://metadata.google.internal/', 'must not target a cloud metadata or internal host name (metadata.google.internal)'],
    ['https://10.0.0.8/', 'must not target a private address (10.0.0.8)'],
    ['https://0.0.0.0/', 'must not target an unspecified ("this network") address (0.0.0.0)'],
    ['https://intranet/', 'must name a public host (intranet is not a fully qualified name)'],
  ])('refuses %s: %s', (url, message) => {
    expect(refusal(url)).toBe(message);
  });

  it('lets WEBHOOK_ALLOW_HOSTS through, and only those', () => {
    const allowed = new AllowedHosts([' localhost ', '::1', '127.0.0.1']);
    expect(checkTargetUrl('https://localhost:8443/hook', allowed)).toMatchObject({ ok: true, needsLookup: false });
    expect(checkTargetUrl('https://[::1]:8443/hook', allowed)).toMatchObject({ ok: true, needsLookup: false });
    expect(refusal('https://10.0.0.8/', allowed)).toBe('must not target a private address (10.0.0.8)');
    expect(refusal('http://localhost/', allowed)).toBe('must use https://');
  });

  it('says, in development, how to allow a local host for testing, and only for local and private hosts', () => {
    const development = new AllowedHosts([], { localTesting: true });
    expect(refusal('https://localhost:8443/hook', development)).toBe(
      'must not target a loopback host name (localhost); to reach localhost while testing locally, start the platform with WEBHOOK_ALLOW_HOSTS=localhost',
    );
    expect(refusal('https://10.0.0.8/', development)).toContain('WEBHOOK_ALLOW_HOSTS=10.0.0.8');
    expect(refusal('http://example.com/', development)).toBe('must use https://');
    expect(refusal('https://localhost/', none)).not.toContain('WEBHOOK_ALLOW_HOSTS');
  });

  it('accepts a public IP literal without a lookup', () => {
    expect(checkTargetUrl('https://8.8.8.8/', none)).toMatchObject({ ok: true, needsLookup: false });
  });
});

describe('forbiddenResolution', () => {
  it('names the first forbidden address among the resolved ones', () => {
    expect(forbiddenResolution('evil.example', ['8.8.8.8', '10.0.0.1'])).toBe('evil.example resolves to a private address (10.0.0.1)');
    expect(forbiddenResolution('ok.example', ['8.8.8.8', '2606:4700:4700::1111'])).toBeUndefined();
  });
});
