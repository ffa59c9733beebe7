import { envName, SETTINGS, type SettingSchema } from './config.js';
import { OTHER_SVC_VARIABLES, SERVER_SETTINGS_SCHEMA } from './config-schema.js';

/**
 * The README's settings tables, made from the settings schema (config-schema.ts). The README
 * holds them between SETTINGS_TABLE_START and SETTINGS_TABLE_END; config-readme.test.ts fails
 * when they differ and rewrites them under SVC_UPDATE_GENERATED=1 (`pnpm settings-table`).
 */

export const SETTINGS_TABLE_START =
  '<!-- settings table: begin. Generated from the settings schema (issue 30, "configuration declared once"); edit the schema, not this table. -->';
export const SETTINGS_TABLE_END = '<!-- settings table: end -->';

/** The Markdown between the markers: every setting, then the other `SVC_` variables. */
export function settingsTableMarkdown(): string {
  const rows = ['| key | variable | default | what |', '|---|---|---|---|'];
  for (const setting of SETTINGS) {
    const variables = [envName(setting.path), setting.schema['x-flag']].filter((name) => name !== undefined);
    rows.push(
      row(
        code(setting.path.join('.')),
        variables.map(code).join(', '),
        defaultText(setting.schema),
        setting.schema.description ?? '',
      ),
    );
    // The plans map sits after trustedProxies in the schema; its row is written there.
    if (setting.path.join('.') === 'trustedProxies') rows.push(plansRow());
  }
  const others = ['| variable | what |', '|---|---|'];
  for (const variable of OTHER_SVC_VARIABLES) others.push(row(code(variable.name), variable.description));
  return [
    rows.join('\n'),
    '',
    'Other `SVC_` variables, not settings, which `svc serve` does not report as unknown:',
    '',
    others.join('\n'),
  ].join('\n');
}

/** The README with its settings tables replaced by the current ones. */
export function withSettingsTable(readme: string): string {
  const start = readme.indexOf(SETTINGS_TABLE_START);
  const end = readme.indexOf(SETTINGS_TABLE_END);
  if (start === -1 || end < start)
    throw new Error(
      `the README has no settings table markers (${SETTINGS_TABLE_START} … ${SETTINGS_TABLE_END})`,
    );
  return `${readme.slice(0, start + SETTINGS_TABLE_START.length)}\n${settingsTableMarkdown()}\n${readme.slice(end)}`;
}

function plansRow(): string {
  const plans = (SERVER_SETTINGS_SCHEMA as unknown as SettingSchema).properties?.plans;
  return row(
    code('plans.<id>.<field>'),
    code('SVC_PLAN_<ID>_<FIELD>'),
    plans?.['x-default'] ?? '',
    plans?.description ?? '',
  );
}

function defaultText(schema: SettingSchema): string {
  if (schema['x-default'] !== undefined) return schema['x-default'];
  const value = schema.default;
  if (value === undefined || value === null) return 'none';
  if (Array.isArray(value))
    return value.length === 0 ? code('[]') : value.map((item) => code(String(item))).join(', ');
  return code(String(value));
}

function code(text: string): string {
  return `\`${text}\``;
}

function row(...cells: string[]): string {
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}
