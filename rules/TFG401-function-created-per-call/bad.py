import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
optimizer = tf.keras.optimizers.Adam(1e-3)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def train_epoch(dataset):
    @tf.function
    def step_fn(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for x, y in dataset:
        step_fn(x, y)


dataset = tf.data.Dataset.from_tensor_slices((tf.random.normal([512, 8]), tf.zeros([512], tf.int64))).batch(32)
for epoch in range(100):
    train_epoch(dataset)  # expect: TFG401
    predict = tf.function(lambda x: tf.argmax(model(x), -1))  # expect: TFG401
    print(epoch, predict(tf.random.normal([4, 8])))
