/**
 * A parser of the Prometheus text exposition format (version 0.0.4): `# HELP` / `# TYPE` lines and
 * samples `name{label="value",...} value [timestamp]`, with the format's escapes in label values.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type?: string;
  help?: string;
  samples: Sample[];
}

function parseValue(text: string): number {
  // As Prometheus reads them (Go's ParseFloat): special values in any letter case.
  const lower = text.toLowerCase();
  if (lower === '+inf' || lower === 'inf') return Number.POSITIVE_INFINITY;
  if (lower === '-inf') return Number.NEGATIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  const v = Number(text);
  if (Number.isNaN(v)) throw new Error(`bad sample value '${text}'`);
  return v;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    while (text[i] === ',' || text[i] === ' ') i++;
    if (i >= text.length) break;
    const eq = text.indexOf('=', i);
    if (eq < 0 || text[eq + 1] !== '"') throw new Error(`bad labels '${text}'`);
    const name = text.slice(i, eq).trim();
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name)) throw new Error(`bad label name '${name}'`);
    let j = eq + 2;
    let value = '';
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        j++;
        value += text[j] === 'n' ? '\n' : text[j];
      } else value += text[j];
    }
    if (j >= text.length) throw new Error(`unterminated label value in '${text}'`);
    labels[name] = value;
    i = j + 1;
  }
  return labels;
}

/** Families by name; a sample belongs to the family whose TYPE line precedes it. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string): Family => {
    let f = families.get(name);
    if (!f) {
      f = { name, samples: [] };
      families.set(name, f);
    }
    return f;
  };
  let current: Family | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(.*)$/.exec(line);
      if (!m) continue;
      current = family(m[2] as string);
      if (m[1] === 'TYPE') current.type = m[3];
      else current.help = m[3];
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?$/.exec(line);
    if (!m) throw new Error(`bad sample line '${line}'`);
    const name = m[1] as string;
    const sample = { name, labels: m[3] ? parseLabels(m[3]) : {}, value: parseValue(m[4] as string) };
    const owner =
      current && (name === current.name || name.startsWith(`${current.name}_`)) ? current : family(name);
    owner.samples.push(sample);
  }
  return families;
}

/** The value of the sample `name` with exactly these labels (a subset match), or undefined. */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== name) continue;
      if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
    }
  }
  return undefined;
}
