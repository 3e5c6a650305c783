/**
 * Labelled questions on the demo knowledge base (a slice of bench/retrieval/demo-labels.ts): 15 answered, 5 with no
 * answer — enough for a grade fit (`POST /admin/knowledge/grading/fit`). Shared by the e2e and browser tests.
 */
export const DEMO_GRADING_LABELS: readonly { query: string; filePath: string | null }[] = [
  { query: '机械臂报过流了怎么办', filePath: 'faults/e201-servo-overcurrent.md' },
  { query: '编码器通信中断报警', filePath: 'faults/e202-encoder-communication.md' },
  { query: '机械臂撞到东西停下来了，怎么恢复', filePath: 'faults/e310-collision-detected.md' },
  { query: '电机温度太高报警', filePath: 'faults/e105-overtemperature.md' },
  { query: '急停按钮松开了还是不能上电', filePath: 'faults/e050-emergency-stop-circuit.md' },
  { query: '如何把报警日志导出到U盘', filePath: 'faults/alarm-history-export.md' },
  { query: '控制柜默认IP是多少', filePath: 'controller/ethernet-connection.md' },
  { query: 'Modbus 寄存器地址表', filePath: 'controller/modbus-tcp-plc.md' },
  { query: 'RoboStudio keeps spinning and never connects', filePath: 'controller/robostudio-offline.md' },
  { query: 'teach pendant black screen after power on', filePath: 'pendant/tp10-black-screen.md' },
  { query: 'touch screen is offset, how to calibrate', filePath: 'pendant/tp10-touch-calibration.md' },
  { query: '编码器电池电压低提示', filePath: 'pendant/zero-calibration-battery.md' },
  { query: '从1.8可以直接升级到2.3吗', filePath: 'firmware/upgrade-procedure.md' },
  { query: '我的订单什么时候发货', filePath: 'orders/order-status-and-delivery.md' },
  { query: '减速机多久换一次油', filePath: 'maintenance/lubrication-schedule.md' },
  { query: '请问机械臂可以在水下使用吗', filePath: null },
  { query: '你们有焊接机器人吗', filePath: null },
  { query: '视觉相机怎么标定', filePath: null },
  { query: 'do you have an office in Berlin', filePath: null },
  { query: '培训课程怎么报名', filePath: null },
];
