/** This SDK's version, sent in the User-Agent; equal to libs/sdk/package.json's (a unit test checks). */
export const SDK_VERSION = '0.1.0';
