import { SETTINGS, type SettingSpec } from './settings';

/** docs/configuration.md, rendered from SETTINGS (a unit test keeps the file equal to this). */
export function renderConfigurationReference(): string {
  const rows = (Object.values(SETTINGS) as SettingSpec[]).map(
    (setting) =>
      `| \`${setting.env}\` | ${setting.default === '' ? '(empty)' : `\`${setting.default}\``} | ${setting.services.join(', ')} | ${setting.description.replace(/\|/g, '\\|')} |`,
  );
  return [
    '# Configuration',
    '',
    'Every setting comes from the environment. This table is generated from `libs/platform/config/src/settings.ts`',
    '(`npm run docs:config` rewrites it; a unit test fails when it is out of date).',
    '',
    '| Variable | Default | Read by | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
