/** Rules the intent e2e files share (intent-rules and intent-rules-timing). */
export const RESET_RULE = {
  intent: 'reset',
  description: 'Resetting the arm',
  keywords: ['复位', 'reset'],
  patterns: ['(复位|重置)(按钮|键)'],
  semanticExamples: ['机械臂怎么复位', '如何重置机器人', 'how do I reset the robot arm', 'restart the arm after an emergency stop', 'the arm needs a reset'],
};
export const POWER_RULE = {
  intent: 'power',
  keywords: ['power supply', '电源'],
  semanticExamples: ['the arm does not power on', '机械臂无法开机', 'no power to the controller', 'which fuse does the power supply use', '上电没有反应'],
};
