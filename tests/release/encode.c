/* A user's program against an installed libswe: loads a model, encodes two texts, prints their cosine
 * and the known-word count of a text the model cannot read. Built by tests/release/check.sh with
 * pkg-config and with find_package(swe), from the release tarball alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <swe.h>

int main(int argc, char ** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: encode MODEL\n");
        return 2;
    }
    swe_model * model = NULL;
    if (swe_model_load_from_file(argv[1], NULL, &model) != SWE_OK) {
        fprintf(stderr, "error: %s\n", swe_last_error());
        return 1;
    }
    const char * a = "a man is playing a guitar";
    const char * b = "someone plays the guitar";
    float score = 0;
    uint32_t known = 99;
    if (swe_model_compute_similarity(model, a, strlen(a), b, strlen(b), NULL, &score) != SWE_OK ||
        swe_model_count_known_words(model, "zzqqxx", 6, &known) != SWE_OK) {
        fprintf(stderr, "error: %s\n", swe_last_error());
        return 1;
    }
    printf("swe %s dims %u similarity %.4f unknown-text words %u\n", swe_version(), swe_model_get_dims(model), score,
           known);
    swe_model_free(model);
    return score > 0.5f && known == 0 ? 0 : 1;
}
