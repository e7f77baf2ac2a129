/** Why an image was refused (search by photo, catalogue images). Kept apart from the decoding so that
 * the HTTP side can name the error without loading sharp. */
export type ImageFailure = 'not_an_image' | 'unsupported_format' | 'too_many_pixels' | 'undecodable';

export class ImageRejectedError extends Error {
  constructor(
    readonly reason: ImageFailure,
    message: string,
  ) {
    super(message);
  }
}
