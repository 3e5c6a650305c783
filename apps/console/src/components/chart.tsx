import { useEffect, useRef } from 'react';
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useI18n } from '../i18n/i18n';

// Only the chart types the console draws: keeps the bundle inside its 500 KB gzip budget (docs/console.md).
echarts.use([BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export type ChartOption = echarts.EChartsCoreOption;

/** One ECharts chart; `label` is its accessible name (the canvas itself says nothing to a screen reader). */
export function Chart({ option, label, height = 260 }: { option: ChartOption; label: string; height?: number }) {
  const element = useRef<HTMLDivElement>(null);
  const { language } = useI18n();
  useEffect(() => {
    if (!element.current) return;
    const chart = echarts.init(element.current, undefined, { renderer: 'canvas', locale: language === 'zh' ? 'ZH' : 'EN' });
    chart.setOption(option);
    const resize = () => chart.resize();
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      chart.dispose();
    };
  }, [option, language]);
  return <div className="chart" ref={element} role="img" aria-label={label} style={{ height }} />;
}
