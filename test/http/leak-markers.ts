// The password every test account uses; the suite's teardown fails if it appears in a log or the store.
export const PASSWORD_FOR_LEAK_SCAN = 'correct horse battery staple 42';
