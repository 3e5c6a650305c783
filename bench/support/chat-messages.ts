/** The chat benchmarks' user messages: Chinese and English, in and out of the demo knowledge, a transfer and a greeting. */
export const CHAT_MESSAGES = [
  '机械臂报警 E201 怎么处理？',
  '示教器黑屏怎么办',
  'How do I upgrade the firmware?',
  '怎么申请退款',
  'E310 碰撞报警误报',
  'What is the weather in Paris tomorrow?',
  '转人工',
  'warranty for the teach pendant',
  'E202 编码器报警',
  '你好',
];
