/** Demo knowledge base seeded into the `demo` tenant on first embedded start (Chinese robot-arm support + English). */
export interface DemoDocument {
  domain: string;
  filePath: string;
  title: string;
  keywords: string[];
  content: string;
}

export const DEMO_KNOWLEDGE: readonly DemoDocument[] = [
  {
    domain: 'robot-arm',
    filePath: 'robot-arm/reset.md',
    title: '机械臂复位步骤',
    keywords: ['复位', '回零', 'reset'],
    content:
      '# 机械臂复位步骤\n\n复位前请先断开末端负载，并确认周围无人。按住控制器面板上的复位键三秒，指示灯由黄色变为绿色即表示复位完成。\n\n' +
      '若指示灯闪烁红色，请检查急停按钮是否已释放；释放后再次执行复位。复位完成后建议执行一次回零操作。',
  },
  {
    domain: 'robot-arm',
    filePath: 'robot-arm/alarm-codes.md',
    title: '机械臂报警代码说明',
    keywords: ['报警', '错误码', 'E-042', 'E-105'],
    content:
      '# 报警代码\n\nE-042：关节过载。请降低负载或速度，检查关节是否有异物卡滞。\n\nE-105：编码器通信异常。请检查编码器线缆连接，必要时重新插拔后重启控制器。\n\n' +
      'E-210：伺服驱动过温。请停机冷却十分钟，并检查控制柜风扇是否正常运转。',
  },
  {
    domain: 'robot-arm',
    filePath: 'robot-arm/calibration.md',
    title: '机械臂零点标定',
    keywords: ['标定', '校准', 'calibration'],
    content:
      '# 零点标定\n\n更换电机或编码器后必须重新标定零点。进入示教器“维护 > 零点标定”菜单，依次将各轴移动到机械零位刻线处并确认。\n\n标定完成后请运行标准测试程序，确认重复定位精度在 ±0.05 mm 以内。',
  },
  {
    domain: 'robot-arm',
    filePath: 'robot-arm/power-en.md',
    title: 'Robot arm does not power on',
    keywords: ['power on', 'fuse'],
    content:
      'If the robot arm does not power on, check that the mains cable is plugged in and the main switch is on. ' +
      'Then check the 10 A fuse on the rear panel of the controller and replace it with one of the same rating. ' +
      'If the controller still shows no lights, contact technical support with the serial number.',
  },
  {
    domain: 'account',
    filePath: 'account/invoice-en.md',
    title: 'Invoices and billing',
    keywords: ['invoice', 'billing', '发票'],
    content:
      'Invoices are issued on the first working day of each month and can be downloaded from the customer portal under Billing. ' +
      '发票每月第一个工作日开具，可在客户门户“账单”页面下载。',
  },
];
