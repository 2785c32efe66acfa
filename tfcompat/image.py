"""`tf.image`: image resizing, cropping, flipping and conversions (re-exports only)."""

from .ops.image_ops import (ResizeMethod, adjust_brightness, adjust_contrast, central_crop, convert_image_dtype,
                            crop_to_bounding_box, flip_left_right, flip_up_down,
                            grayscale_to_rgb, pad_to_bounding_box, per_image_standardization,
                            resize, resize_with_crop_or_pad, rgb_to_grayscale)

__all__ = ["ResizeMethod", "resize", "flip_left_right", "flip_up_down", "central_crop",
           "crop_to_bounding_box", "pad_to_bounding_box", "resize_with_crop_or_pad",
           "rgb_to_grayscale", "grayscale_to_rgb", "convert_image_dtype",
           "per_image_standardization", "adjust_brightness", "adjust_contrast"]
