// parse-prometheus-text-format ships no types.
declare module 'parse-prometheus-text-format' {
  type Metric = { labels?: Record<string, string>; value?: string; buckets?: Record<string, string> };
  export default function parse(text: string): Array<{ name: string; help: string; type: string; metrics: Metric[] }>;
}
