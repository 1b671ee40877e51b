import type { PasswordPolicy } from '@hub/contract';

export const defaultPolicy: PasswordPolicy = {
  minLength: 6,
  requireUppercase: false,
  requireLowercase: false,
  requireNumbers: false,
  requireSpecialChars: false,
  preventCommonPasswords: false,
  preventReuse: 0,
  maxAge: 0,
};

// The most common passwords of public breach corpora (lower-cased), enough to stop the obvious ones.
const common = new Set(
  `123456 password 12345678 qwerty 123456789 12345 1234 111111 1234567 dragon 123123 baseball abc123 football monkey
letmein 696969 shadow master 666666 qwertyuiop 123321 mustang 1234567890 michael 654321 superman 1qaz2wsx 7777777
121212 000000 qazwsx 123qwe killer trustno1 jordan jennifer zxcvbnm asdfgh hunter buster soccer harley batman andrew
tigger sunshine iloveyou 2000 charlie robert thomas hockey ranger daniel starwars klaster 112233 george computer
michelle jessica pepper 1111 zxcvbn 555555 11111111 131313 freedom 777777 pass maggie 159753 aaaaaa ginger princess
joshua cheese amanda summer love ashley nicole chelsea biteme matthew access yankees 987654321 dallas austin thunder
taylor matrix minecraft admin admin123 administrator welcome welcome1 password1 password123 passw0rd p@ssw0rd
changeme secret root toor qwerty123 abcdef abcd1234 1q2w3e4r 1q2w3e 123abc test test123 guest default`.split(/\s+/),
);

/** What is wrong with a password under a policy, or null. Names no more than needed. */
export function passwordProblem(password: string, policy: PasswordPolicy): string | null {
  if (password.length < policy.minLength) return `must be at least ${policy.minLength} characters`;
  if (policy.requireUppercase && !/[A-Z]/.test(password)) return 'must contain an upper-case letter';
  if (policy.requireLowercase && !/[a-z]/.test(password)) return 'must contain a lower-case letter';
  if (policy.requireNumbers && !/[0-9]/.test(password)) return 'must contain a number';
  if (policy.requireSpecialChars && !/[^A-Za-z0-9]/.test(password)) return 'must contain a special character';
  if (policy.preventCommonPasswords && common.has(password.toLowerCase())) return 'is too common';
  return null;
}
