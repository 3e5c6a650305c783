/**
 * Demo knowledge base of the `demo` tenant: after-sales support for a (fictional) robot-arm vendor —
 * RA-6 / RA-12 six-axis arms, the RC-200 controller, the TP-10 teach pendant. Chinese with some
 * English documents, across fault codes, controller connection, teach pendant, firmware, and
 * orders / refunds. The one demo knowledge fixture: seeded into the `demo` tenant on the first
 * embedded start (the chat lib's demo seed), and the corpus of the chat and retrieval tests and benches.
 *
 * Wording rule: no document contains a coverage-v1 no-answer phrase (未找到, 没有找到, 无法确定,
 * 暂无相关, 知识库中没有 …), or every answer quoting it would be classified as a miss.
 */
export interface DemoDocument {
  domain: string;
  filePath: string;
  title: string;
  keywords: string[];
  content: string;
}

export const DEMO_KNOWLEDGE: readonly DemoDocument[] = [
  // --- Fault codes / alarms -------------------------------------------------------------------
  {
    domain: 'fault-codes',
    filePath: 'faults/e201-servo-overcurrent.md',
    title: 'E201 伺服过流报警',
    keywords: ['E201', '伺服过流', '过流', 'overcurrent'],
    content:
      'E201 表示伺服驱动器检测到电机相电流超过额定值的 300%。常见原因：电机动力线破损或短路、负载超过额定负载、机械臂与周边设备发生碰撞、驱动器功率模块损坏。\n' +
      '处理步骤：1. 立即按下急停按钮，确认机械臂周围无人员。2. 关闭控制柜主电源并等待 5 分钟，让驱动器电容放电。3. 用兆欧表检查报警轴电机动力线对地绝缘，应大于 20 MΩ。4. 检查末端负载是否超过 RA-6 的 6 kg 额定负载。5. 上电后在 TP-10 示教器上按【复位】清除报警，低速点动报警轴确认运行平稳。\n' +
      '如果复位后 E201 立即再次出现，多为驱动器功率模块损坏，请记录报警轴号和发生时间后提交售后工单。',
  },
  {
    domain: 'fault-codes',
    filePath: 'faults/e202-encoder-communication.md',
    title: 'E202 编码器通信异常',
    keywords: ['E202', '编码器通信', '编码器异常', 'encoder'],
    content:
      'E202 表示控制柜与某一轴绝对值编码器之间的串行通信中断或校验错误。常见原因：编码器电缆接头松动、电缆在拖链中被反复弯折导致断芯、强电与编码器线同槽走线引起干扰。\n' +
      '处理步骤：1. 断电后重新插紧报警轴编码器接头（X21–X26）。2. 检查拖链内编码器电缆有无压痕，必要时用万用表逐芯测量通断。3. 确认编码器线与动力线分开走线，屏蔽层单端接地。4. 上电复位。若报警轴显示“多圈数据丢失”，需要执行零点标定（参见《零点标定与编码器电池更换》）。',
  },
  {
    domain: 'fault-codes',
    filePath: 'faults/e310-collision-detected.md',
    title: 'E310 碰撞检测报警',
    keywords: ['E310', '碰撞', 'collision'],
    content:
      'E310 表示碰撞检测功能判断机械臂受到了超出阈值的外力，机械臂已自动停止并短暂回退以释放压力。\n' +
      '处理步骤：1. 确认现场安全，移开障碍物。2. 在示教器上按【复位】清除报警，以低速点动方式离开碰撞位置。3. 若并未真的发生碰撞而频繁误报，检查末端负载参数（质量、重心）是否与实际一致；负载参数偏小会导致误报。4. 碰撞灵敏度可在【设置 → 安全 → 碰撞检测】中调整，默认等级 3，建议不要低于 2。',
  },
  {
    domain: 'fault-codes',
    filePath: 'faults/e105-overtemperature.md',
    title: 'E105 电机过热报警',
    keywords: ['E105', '过热', 'overheat'],
    content:
      'E105 表示电机绕组温度超过 110 ℃。常见原因：节拍过快导致连续大电流运行、环境温度超过 45 ℃、电机散热片被粉尘覆盖、抱闸未完全释放造成拖闸运行。\n' +
      '处理步骤：1. 停止程序，让机械臂静止冷却 30 分钟。2. 清理电机表面和控制柜风扇滤网的粉尘。3. 检查程序中是否有长时间高速往复动作，适当降低加速度。4. 听抱闸释放时是否有清脆的“咔嗒”声，如无声音请检查抱闸电源 24 V。',
  },
  {
    domain: 'fault-codes',
    filePath: 'faults/e050-emergency-stop-circuit.md',
    title: 'E050 急停回路断开',
    keywords: ['E050', 'E051', '急停', 'emergency stop'],
    content:
      'E050 表示安全回路中的急停信号断开。可能来源：示教器急停按钮、控制柜面板急停、外部急停（安全 I/O 端子 ES1/ES2）、安全门开关。\n' +
      '处理步骤：1. 依次检查并旋起所有急停按钮。2. 如果使用外部急停，确认端子 ES1/ES2 的短接片或外部回路完好，双通道必须同时闭合。3. 全部恢复后在示教器上按【复位】，再按【伺服上电】。双通道信号不一致时会报 E051，需要检查接线。',
  },
  {
    domain: 'fault-codes',
    filePath: 'faults/alarm-history-export.md',
    title: '报警历史查看与导出',
    keywords: ['报警历史', '报警记录', '导出日志', 'alarm history'],
    content:
      '在 TP-10 示教器主菜单选择【诊断 → 报警历史】可查看最近 1000 条报警，包含报警代码、轴号、时间和当时的程序行号。\n' +
      '导出方法：插入 FAT32 格式 U 盘，在报警历史页面点击【导出】，系统会生成 alarm_YYYYMMDD.csv 和 syslog.tar.gz。提交售后工单时请附上这两个文件，可以显著缩短排查时间。',
  },
  // --- Controller connection -------------------------------------------------------------------
  {
    domain: 'controller-connection',
    filePath: 'controller/ethernet-connection.md',
    title: 'RC-200 控制柜以太网连接设置',
    keywords: ['以太网', 'IP 地址', 'IP地址', '连不上', '连接不上', '网线'],
    content:
      'RC-200 控制柜的 LAN1 口默认 IP 为 192.168.1.100，子网掩码 255.255.255.0。电脑连接前请把网卡设置为同一网段的静态地址，例如 192.168.1.10。\n' +
      '连接不上时依次检查：1. 网线插在 LAN1 而不是 LAN2（LAN2 保留给 EtherCAT 扩展）。2. 在电脑上 ping 192.168.1.100，超时说明网段或网线有问题。3. 关闭电脑防火墙或放行 TCP 端口 5007（RoboStudio 通讯端口）。4. 控制柜 IP 可在示教器【设置 → 网络】中修改，修改后需重启控制柜生效。',
  },
  {
    domain: 'controller-connection',
    filePath: 'controller/modbus-tcp-plc.md',
    title: 'PLC 通过 Modbus TCP 控制机械臂',
    keywords: ['Modbus', 'PLC'],
    content:
      'RC-200 内置 Modbus TCP 从站，端口 502，单元号 1。常用寄存器：40001 程序号（写入后生效）、40002 启动命令（写 1 启动，控制柜执行后自动清零）、40003 暂停、40004 停止；30001 运行状态（0 空闲，1 运行，2 暂停，3 报警），30002 当前报警代码。\n' +
      '使用前需在示教器【设置 → 外部控制】中把控制源切换为“远程 Modbus”，并在自动模式下运行。PLC 轮询周期建议不小于 20 ms。',
  },
  {
    domain: 'controller-connection',
    filePath: 'controller/robostudio-offline.md',
    title: 'RoboStudio connection troubleshooting (English)',
    keywords: ['RoboStudio', 'connect to the controller', 'cannot connect', "can't connect", 'connection refused'],
    content:
      'RoboStudio connects to the RC-200 controller over TCP port 5007 on LAN1 (default address 192.168.1.100).\n' +
      'If RoboStudio shows "connection refused" or keeps spinning: 1. Check that your PC has a static address in 192.168.1.x and can ping the controller. 2. Make sure only one RoboStudio session is connected; the controller accepts a single write session. 3. Allow port 5007 in the Windows firewall. 4. RoboStudio 3.x requires controller firmware 2.0 or later; older controllers must be upgraded first (see "Firmware upgrade procedure").',
  },
  {
    domain: 'controller-connection',
    filePath: 'controller/io-wiring.md',
    title: '控制柜数字 I/O 接线说明',
    keywords: ['I/O', '接线', 'NPN', 'PNP', 'wiring'],
    content:
      'RC-200 标配 16 路数字输入（DI1–DI16）和 16 路数字输出（DO1–DO16），24 V DC，输入兼容 NPN/PNP，通过端子 COM 选择公共端。每路输出最大 0.5 A，总电流不超过 4 A；驱动电磁阀等感性负载时必须并联续流二极管。\n' +
      'I/O 状态可在示教器【监控 → I/O】页面实时查看和强制输出，强制功能仅在手动模式下可用。',
  },
  // --- Teach pendant ----------------------------------------------------------------------------
  {
    domain: 'teach-pendant',
    filePath: 'pendant/tp10-black-screen.md',
    title: 'TP-10 示教器黑屏或无法启动',
    keywords: ['黑屏', '示教器无法启动', 'black screen'],
    content:
      '示教器黑屏时按以下顺序排查：1. 确认控制柜已上电，面板电源指示灯常亮。2. 检查示教器电缆与控制柜 X10 接口是否插紧，航空插头的锁紧环要拧到底。3. 观察示教器背面指示灯：绿灯闪烁表示正在启动，约需 60 秒；红灯常亮表示通信故障。4. 用备用示教器或备用电缆交叉测试，区分是示教器本体还是电缆故障。\n' +
      '示教器电缆属于易损件，拖拽和反复弯折是最常见的损坏原因。',
  },
  {
    domain: 'teach-pendant',
    filePath: 'pendant/tp10-touch-calibration.md',
    title: 'TP-10 示教器触摸屏校准',
    keywords: ['触摸', 'touch screen', 'touchscreen'],
    content:
      '触摸位置偏移时需要重新校准：在示教器启动画面出现时，同时按住【F1】和【F4】约 3 秒进入校准程序，依次点击屏幕上出现的 5 个十字中心，完成后自动保存并重启。\n' +
      '如果校准后仍然局部失灵，可能是屏幕表面划伤或进液，请停止使用并联系售后更换触摸屏组件。',
  },
  {
    domain: 'teach-pendant',
    filePath: 'pendant/jog-and-teach-points.md',
    title: '示教器点动与示教点记录',
    keywords: ['点动', '示教点', '记录点位', 'jog'],
    content:
      '手动模式下按住示教器背面的使能开关（三段式，中间位置有效），再按轴键即可点动。坐标系可在关节、世界、工具、用户坐标系之间切换，速度倍率建议从 10% 开始。\n' +
      '记录示教点：移动到目标位置后，在程序编辑页选中指令行，点击【修改位置】即可把当前位置写入该点。新增运动指令时选择 MOVJ（关节插补）或 MOVL（直线插补）。',
  },
  {
    domain: 'teach-pendant',
    filePath: 'pendant/zero-calibration-battery.md',
    title: '零点标定与编码器电池更换',
    keywords: ['零点', '编码器电池', '电池', 'battery', 'zero calibration'],
    content:
      '绝对值编码器的多圈数据由底座内的 3.6 V 锂电池保持，电池寿命约 2 年。示教器提示“编码器电池电压低”时应在 30 天内更换，更换时必须保持控制柜通电，否则多圈数据会丢失。\n' +
      '多圈数据丢失后需要零点标定：1. 手动模式下点动各轴使刻度线对齐零点标记。2. 在【设置 → 零点标定】中选择对应轴，点击【设定零点】。3. 标定后运行一次零点检查程序，确认各轴位置正确。',
  },
  {
    domain: 'teach-pendant',
    filePath: 'pendant/user-permissions.md',
    title: 'Teach pendant user levels and passwords (English)',
    keywords: ['password', '密码', 'user level', '权限'],
    content:
      'The TP-10 teach pendant has three user levels: Operator (run programs only), Programmer (edit programs and teach points) and Administrator (settings, safety and network).\n' +
      'The default Administrator password is set at commissioning and printed on the delivery checklist. A forgotten Administrator password can be reset by service only: send the controller serial number and the purchase order number to support, and you will receive a one-time reset code bound to that serial number.',
  },
  // --- Firmware ---------------------------------------------------------------------------------
  {
    domain: 'firmware',
    filePath: 'firmware/upgrade-procedure.md',
    title: '控制柜固件升级步骤',
    keywords: ['固件升级', '升级固件', '固件', 'firmware', '系统升级'],
    content:
      '升级前请先备份程序和参数（【系统 → 备份】导出到 U 盘）。升级步骤：1. 从官网下载与控制柜型号对应的固件包 rc200_fw_x.y.z.pkg，放在 U 盘根目录。2. 控制柜切换到手动模式、伺服断电。3. 在示教器【系统 → 固件升级】中选择固件包，确认版本号后开始升级，约 8 分钟。4. 升级过程中严禁断电，完成后控制柜自动重启。5. 重启后在【系统 → 版本信息】确认版本，并运行一次零点检查程序。\n' +
      '固件只能逐个大版本升级，例如 1.8 需要先升级到 2.0，再升级到 2.3。',
  },
  {
    domain: 'firmware',
    filePath: 'firmware/upgrade-failure-recovery.md',
    title: '固件升级失败的恢复方法',
    keywords: ['升级失败', '固件恢复', '救援模式', 'upgrade failed'],
    content:
      '升级中途断电或提示校验失败后，控制柜可能停在启动画面。恢复方法：1. 关闭控制柜电源。2. 把相同版本的固件包放在 U 盘根目录并插入控制柜前面板 USB 口。3. 按住控制柜面板【复位】键的同时上电，保持 10 秒进入救援模式，系统会自动从 U 盘重新安装固件。4. 安装完成后从备份恢复程序和参数。\n' +
      '救援模式仍然失败时，请准备控制柜序列号并提交售后工单，由工程师远程或上门处理。',
  },
  {
    domain: 'firmware',
    filePath: 'firmware/release-notes-2-3.md',
    title: 'Firmware 2.3 release notes (English)',
    keywords: ['release notes', '2.3.1', '更新内容', 'changelog'],
    content:
      'Firmware 2.3.1 for the RC-200 controller: adds collision-detection sensitivity levels 1–5 (previously fixed), Modbus TCP register 30002 for the active alarm code, and faster program loading (about 40% on programs over 5,000 lines).\n' +
      'Fixes: E202 false alarms after long idle periods, teach pendant freezing when exporting more than 500 alarm records. Upgrade path: 2.0 or later can go straight to 2.3.1; 1.x must be upgraded to 2.0 first.',
  },
  // --- Orders and refunds -----------------------------------------------------------------------
  {
    domain: 'orders',
    filePath: 'orders/refund-policy.md',
    title: '退货与退款政策',
    keywords: ['退款', '退货', 'refund', 'return policy'],
    content:
      '标准品（机械臂本体、控制柜、示教器、线缆）自签收之日起 7 天内，在未安装使用、包装完好的前提下可申请无理由退货，退款在收到退货并验收后 5 个工作日内原路退回。\n' +
      '已安装使用的设备如出现质量问题，在质保期内优先维修或更换，不支持无理由退货。定制件（定制夹具、非标线缆）不支持退货。申请方式：在订单页面点击【申请售后】，或把订单号发给客服。',
  },
  {
    domain: 'orders',
    filePath: 'orders/order-status-and-delivery.md',
    title: '订单状态与发货时间',
    keywords: ['订单', '发货', '物流', '快递', 'order status', 'delivery', 'shipping'],
    content:
      '现货订单在付款后 3 个工作日内发货，定制订单按合同约定交期。订单状态依次为：已下单 → 已付款 → 备货中 → 已发货 → 已签收。\n' +
      '发货后系统会短信推送物流单号，也可以在订单详情页查看。大件设备（RA-12 及以上）通过专线物流配送，需要预约卸货时间，请保持收货人电话畅通。',
  },
  {
    domain: 'orders',
    filePath: 'orders/warranty-policy.md',
    title: '质保政策',
    keywords: ['质保', '保修', 'warranty'],
    content:
      '机械臂本体和控制柜质保 18 个月，自验收之日起计算；示教器、线缆等附件质保 12 个月。质保期内因产品本身质量问题导致的故障免费维修，包括零件和人工。\n' +
      '以下情况不在质保范围：超出额定负载或规格使用、非授权人员拆机维修、碰撞等人为损坏、未按要求定期保养。易损件（示教器电缆、编码器电池）按易损件政策处理。',
  },
  {
    domain: 'orders',
    filePath: 'orders/invoice.md',
    title: 'Invoices and payment terms (English)',
    keywords: ['invoice', '发票', 'VAT'],
    content:
      'An electronic VAT invoice is issued within 3 business days after the order is paid and is sent to the email address on the order. To change the invoice title or tax number, contact support before the invoice is issued; after issuing, the invoice must be voided and reissued, which takes about 5 business days.\n' +
      'Enterprise customers with a framework agreement can pay by bank transfer within 30 days of delivery.',
  },
  {
    domain: 'maintenance',
    filePath: 'maintenance/lubrication-schedule.md',
    title: '减速机润滑保养周期',
    keywords: ['润滑', '换油', '减速机', 'lubrication', 'grease'],
    content:
      'RA-6 各轴减速机每运行 5000 小时或每 12 个月（以先到者为准）更换一次润滑脂，使用指定型号 RG-2 润滑脂。J1–J3 每轴加注量约 120 g，J4–J6 约 40 g。\n' +
      '换油步骤：打开排油口和注油口，点动该轴使旧油排出，从注油口注入新油直到排油口出现新油，然后点动该轴 10 分钟再装回排油螺塞，避免内部压力过高。',
  },
];
