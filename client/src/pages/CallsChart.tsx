import { createEffect, onCleanup, onMount } from 'solid-js';
import type uPlot from 'uplot';

export type Point = { at: number; calls: number; errors: number };

/**
 * Calls and errors per minute over the last hour (uPlot, loaded with the
 * dashboard). The total is also on the element, for tests and screen readers.
 */
export function CallsChart(props: { points: Point[] }) {
  let el!: HTMLDivElement;
  let plot: uPlot | undefined;
  const data = () => [props.points.map((p) => p.at / 1000), props.points.map((p) => p.calls), props.points.map((p) => p.errors)];
  onMount(async () => {
    const [{ default: UPlot }] = await Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]);
    plot = new UPlot(
      {
        width: el.clientWidth || 600,
        height: 180,
        series: [{}, { label: 'calls', stroke: '#2563eb', width: 2 }, { label: 'errors', stroke: '#dc2626', width: 2 }],
        axes: [{ stroke: '#98a2b3', grid: { stroke: '#8883' } }, { stroke: '#98a2b3', grid: { stroke: '#8883' } }],
      },
      data() as never,
      el,
    );
    const resize = () => plot?.setSize({ width: el.clientWidth || 600, height: 180 });
    window.addEventListener('resize', resize);
    onCleanup(() => window.removeEventListener('resize', resize));
  });
  createEffect(() => plot?.setData(data() as never));
  onCleanup(() => plot?.destroy());
  const total = () => props.points.reduce((n, p) => n + p.calls, 0);
  return <div ref={el} class="chart" data-testid="calls-chart" data-calls={total()} aria-label={`${total()} calls in the last hour`} />;
}
