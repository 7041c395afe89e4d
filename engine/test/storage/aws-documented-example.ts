/**
 * The worked example of S3's Signature Version 4 documentation ("Authenticating Requests: Using the Authorization
 * Header", signature calculation examples). These are AWS's published example credentials — the documentation's
 * own values, ending in EXAMPLE, belonging to no account — and the signatures AWS publishes for them: the inputs and
 * answers of a known-answer test, so they are written here once rather than read from configuration.
 */
export const DOCUMENTED_CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
} as const;

export const DOCUMENTED_REGION = 'us-east-1';
export const DOCUMENTED_DATE = '20130524';

/** AWS's signature of the documented GET Object request (Range: bytes=0-9). */
export const DOCUMENTED_GET_SIGNATURE = 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41';

/** The credential scope line of an Authorization header for the documented example. */
export const DOCUMENTED_CREDENTIAL = `${DOCUMENTED_CREDENTIALS.accessKeyId}/${DOCUMENTED_DATE}/${DOCUMENTED_REGION}/s3/aws4_request`;
